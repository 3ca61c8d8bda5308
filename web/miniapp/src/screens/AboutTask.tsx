import { useState } from 'react';
import type { AgentReputation, GeoPoint, TaskLocation } from '../api';
import { mapUrl, placeOf } from '../geo';
import { distanceLabel } from '../labels';
import { openOutside, requestLocation, useLocationAvailable } from '../telegram';

/** What the agent has done so far, so the worker can judge whom they work for. */
export function AgentInfo({ agent }: { agent: AgentReputation }) {
  if (agent.tasksPaid === undefined) return null;
  const rating =
    agent.averageRating != null && (agent.ratingCount ?? 0) > 0
      ? `${agent.averageRating.toFixed(1)} ★`
      : 'No ratings yet';
  return (
    <section className="section" aria-label="About the agent">
      <h2>About the agent</h2>
      <p className="small agent-name">{agent.name ?? 'An agent without a name'}</p>
      <dl className="facts">
        <div>
          <dt>Tasks paid</dt>
          <dd>{agent.tasksPaid}</dd>
        </div>
        <div>
          <dt>Rating</dt>
          <dd>
            {rating}
            {agent.ratingCount ? <span className="muted small"> ({agent.ratingCount})</span> : null}
          </dd>
        </div>
        <div>
          <dt>Disputes lost</dt>
          <dd>{agent.disputesLost ?? 0}</dd>
        </div>
        <div>
          <dt>Usually reviews in</dt>
          <dd>{agent.medianReviewHours == null ? '—' : hoursLabel(agent.medianReviewHours)}</dd>
        </div>
      </dl>
    </section>
  );
}

function hoursLabel(hours: number): string {
  if (hours < 1) return 'under an hour';
  const h = Math.round(hours);
  return h < 48 ? `${h} ${h === 1 ? 'hour' : 'hours'}` : `${Math.round(h / 24)} days`;
}

/** Where the task is to be done, and how far the worker is from it once they share a location. */
export function Place({ location }: { location: TaskLocation }) {
  const canLocate = useLocationAvailable();
  const [here, setHere] = useState<GeoPoint | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const place = here ? placeOf(location, here) : null;
  const locate = async () => {
    setBusy(true);
    setNote(null);
    try {
      const found = await requestLocation();
      if (found) setHere(found);
      else setNote('Telegram did not share your location.');
    } catch {
      setNote('Your location could not be read.');
    } finally {
      setBusy(false);
    }
  };
  return (
    <section className="section" aria-label="Where">
      <h2>Where</h2>
      <p className="small">
        {location.label ? <strong>{location.label}</strong> : 'At the spot on the map'}
        <span className="muted"> · within {distanceLabel(location.radiusMeters)}</span>
      </p>
      <a
        className="small"
        href={mapUrl(location)}
        target="_blank"
        rel="noreferrer"
        onClick={(e) => {
          if (openOutside(mapUrl(location))) e.preventDefault();
        }}
      >
        Open the map
      </a>
      {place ? (
        <p className="small" role="status">
          {place.inside
            ? `You are inside the area (${distanceLabel(place.meters)} from its centre).`
            : `You are ${distanceLabel(place.meters)} away, outside the area.`}
        </p>
      ) : canLocate ? (
        <button type="button" className="secondary" onClick={() => void locate()} disabled={busy}>
          {busy ? 'Asking Telegram…' : 'Show how far I am'}
        </button>
      ) : null}
      {note ? <p className="muted small">{note}</p> : null}
    </section>
  );
}
