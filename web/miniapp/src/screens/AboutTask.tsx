import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { AgentReputation, GeoPoint, TaskLocation } from '../api';
import { formatDistance, formatDuration, formatNumber } from '../format';
import { mapUrl, placeOf } from '../geo';
import { openOutside, requestLocation, useLocationAvailable } from '../telegram';
import { Fact, Section } from '../ui';

/** What the agent has done so far, so the worker can judge whom they work for; and who applied. */
export function AgentInfo({
  agent,
  applicants,
  open,
}: {
  agent: AgentReputation;
  applicants?: number;
  /** The task still takes applications: the applicant count matters. */
  open?: boolean;
}) {
  const { t } = useTranslation();
  if (agent.tasksPaid === undefined) return null;
  const rated = agent.averageRating != null && (agent.ratingCount ?? 0) > 0;
  return (
    <Section title={t('task.aboutAgent')}>
      <Fact label={t('task.agent')}>{agent.name ?? t('task.anAgent')}</Fact>
      <Fact label={t('task.tasksPaidLabel')}>{agent.tasksPaid}</Fact>
      <Fact label={t('task.ratingLabel')}>
        {rated
          ? t('task.ratingValue', {
              rating: formatNumber((agent.averageRating ?? 0).toFixed(1)),
              count: agent.ratingCount ?? 0,
            })
          : t('task.noRatings')}
      </Fact>
      <Fact label={t('task.disputesLostLabel')}>{agent.disputesLost ?? 0}</Fact>
      <Fact label={t('task.reviewsIn')}>
        {agent.medianReviewHours == null ? '—' : formatDuration(agent.medianReviewHours * 3_600_000)}
      </Fact>
      {open && applicants !== undefined ? <Fact label={t('task.applicantsLabel')}>{applicants}</Fact> : null}
    </Section>
  );
}

/** Where the task is to be done, and how far the worker is from it once they share a location. */
export function Place({ location }: { location: TaskLocation }) {
  const { t } = useTranslation();
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
      else setNote(t('task.locationRefused'));
    } catch {
      setNote(t('task.locationFailed'));
    } finally {
      setBusy(false);
    }
  };
  return (
    <Section title={t('task.where')} plain>
      <p className="small">
        {location.label ? <strong>{location.label}</strong> : t('task.onTheMap')}
        <span className="muted">
          {' '}
          · {t('task.within', { distance: formatDistance(location.radiusMeters) })}
        </span>
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
        {t('task.openMap')}
      </a>
      {place ? (
        <p className="small" role="status">
          {place.inside
            ? t('task.inside', { distance: formatDistance(place.meters) })
            : t('task.outside', { distance: formatDistance(place.meters) })}
        </p>
      ) : canLocate ? (
        <button type="button" className="secondary wide" onClick={() => void locate()} disabled={busy}>
          {busy ? t('task.askingTelegram') : t('task.howFar')}
        </button>
      ) : null}
      {note ? <p className="muted small">{note}</p> : null}
    </Section>
  );
}
