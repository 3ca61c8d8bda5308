import { invalid } from '../errors.js';
import { isBlank, textLength } from '../text.js';

/** The bounds of a task's area (issue 25): a radius from 10 m to 50 km, a label of 200 characters. */
export const RADIUS_METERS = { min: 10, max: 50_000 } as const;
export const LOCATION_LABEL_MAX = 200;
/** A submission's reported accuracy is kept up to this (a GPS fix worse than 100 km says nothing). */
export const ACCURACY_METERS_MAX = 100_000;
const EARTH_RADIUS_METERS = 6_371_008.8;

export interface TaskLocation {
  latitude: number;
  longitude: number;
  radiusMeters: number;
  label: string | null;
}

export interface PointInput {
  latitude: number;
  longitude: number;
  accuracyMeters?: number;
}

function checkCoordinates(path: string, latitude: number, longitude: number) {
  if (!Number.isFinite(latitude) || latitude < -90 || latitude > 90) {
    throw invalid(`${path}.latitude`, 'must be a number of degrees from -90 to 90');
  }
  if (!Number.isFinite(longitude) || longitude < -180 || longitude > 180) {
    throw invalid(`${path}.longitude`, 'must be a number of degrees from -180 to 180');
  }
}

/** A task's area as the agent gave it, checked (POST /tasks `location`). */
export function checkTaskLocation(input: {
  latitude: number;
  longitude: number;
  radiusMeters: number;
  label?: string;
}): TaskLocation {
  checkCoordinates('location', input.latitude, input.longitude);
  const radius = input.radiusMeters;
  if (!Number.isInteger(radius) || radius < RADIUS_METERS.min || radius > RADIUS_METERS.max) {
    throw invalid(
      'location.radiusMeters',
      `must be a whole number of meters from ${RADIUS_METERS.min} to ${RADIUS_METERS.max}`,
    );
  }
  let label: string | null = null;
  if (input.label !== undefined && !isBlank(input.label)) {
    if (textLength(input.label) > LOCATION_LABEL_MAX) {
      throw invalid('location.label', `must be at most ${LOCATION_LABEL_MAX} characters`);
    }
    label = input.label.trim();
  }
  return { latitude: input.latitude, longitude: input.longitude, radiusMeters: radius, label };
}

/** Where a worker says the work was done (a submission's `location`), checked. */
export function checkPoint(input: PointInput): {
  latitude: number;
  longitude: number;
  accuracyMeters: number | null;
} {
  checkCoordinates('location', input.latitude, input.longitude);
  const accuracy = input.accuracyMeters;
  if (
    accuracy !== undefined &&
    (!Number.isFinite(accuracy) || accuracy < 0 || accuracy > ACCURACY_METERS_MAX)
  ) {
    throw invalid('location.accuracyMeters', `must be a number of meters from 0 to ${ACCURACY_METERS_MAX}`);
  }
  return { latitude: input.latitude, longitude: input.longitude, accuracyMeters: accuracy ?? null };
}

/** Great-circle distance in meters (haversine): plenty for a radius of at most 50 km. */
export function distanceMeters(
  a: { latitude: number; longitude: number },
  b: { latitude: number; longitude: number },
): number {
  const rad = Math.PI / 180;
  const dLat = (b.latitude - a.latitude) * rad;
  const dLon = (b.longitude - a.longitude) * rad;
  const h =
    Math.sin(dLat / 2) ** 2 +
    Math.cos(a.latitude * rad) * Math.cos(b.latitude * rad) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_METERS * Math.asin(Math.min(1, Math.sqrt(h)));
}

/**
 * Whether a reported point lies in the task's area. A signal, never proof: the point's own
 * accuracy is not added to the radius (a vague fix should not widen the area), and nothing is
 * refused on it (docs/decisions/submissions-and-reviews.md).
 */
export function withinArea(area: TaskLocation, point: { latitude: number; longitude: number }): boolean {
  return distanceMeters(area, point) <= area.radiusMeters;
}

/** The task's area from its columns, or null when it has none. */
export function taskLocationOf(task: {
  location_latitude: number | null;
  location_longitude: number | null;
  location_radius_meters: number | null;
  location_label: string | null;
}): TaskLocation | null {
  if (
    task.location_latitude === null ||
    task.location_longitude === null ||
    task.location_radius_meters === null
  )
    return null;
  return {
    latitude: task.location_latitude,
    longitude: task.location_longitude,
    radiusMeters: task.location_radius_meters,
    label: task.location_label,
  };
}
