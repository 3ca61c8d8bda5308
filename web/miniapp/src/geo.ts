import type { GeoPoint, TaskLocation } from './api.js';

const EARTH_RADIUS_M = 6_371_008.8;
const rad = (deg: number) => (deg * Math.PI) / 180;

/** Great-circle distance in meters (haversine): good to a few meters at city scale. */
export function distanceMeters(a: GeoPoint, b: GeoPoint): number {
  const dLat = rad(b.latitude - a.latitude);
  const dLon = rad(b.longitude - a.longitude);
  const h =
    Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.latitude)) * Math.cos(rad(b.latitude)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}

/** Where the worker stands relative to the task's area. */
export function placeOf(area: TaskLocation, here: GeoPoint): { meters: number; inside: boolean } {
  const meters = distanceMeters(area, here);
  return { meters, inside: meters <= area.radiusMeters };
}

/** A map of the spot, opened outside the app (nothing is loaded from the map site in the app). */
export function mapUrl(point: GeoPoint): string {
  const lat = point.latitude.toFixed(5);
  const lon = point.longitude.toFixed(5);
  return `https://www.openstreetmap.org/?mlat=${lat}&mlon=${lon}#map=16/${lat}/${lon}`;
}
