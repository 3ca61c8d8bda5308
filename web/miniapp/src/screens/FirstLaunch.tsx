import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, type Worker } from '../api';
import { haptic, useClosingConfirmation, useMainButton } from '../telegram';
import { ErrorNote, Section } from '../ui';
import { WalletSection } from './Wallet';

const KEY = 'handoff.firstLaunchDone';

/** Whether this worker went past the first-launch screen on this phone already. */
export function firstLaunchDone(workerId: string): boolean {
  try {
    return localStorage.getItem(KEY) === workerId;
  } catch {
    return false;
  }
}

function rememberDone(workerId: string) {
  try {
    localStorage.setItem(KEY, workerId);
  } catch {
    // Storage refused (private mode): the screen shows again next time, which is harmless.
  }
}

/**
 * The first launch: what Handoff is, in two lines, then what applying needs: a headline agents
 * read, and the TON wallet rewards are paid to. Continue saves the headline and goes on to the
 * tasks (or to the rest of the profile while something is still missing).
 */
export function FirstLaunch({
  me,
  onSaved,
  onDone,
}: {
  me: Worker;
  onSaved: (worker: Worker) => void;
  onDone: (next: 'tasks' | 'profile') => void;
}) {
  const { t } = useTranslation();
  const [headline, setHeadline] = useState(me.headline);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const changed = headline.trim() !== me.headline.trim();
  useClosingConfirmation(changed);

  const next = async () => {
    setBusy(true);
    setError(null);
    try {
      let worker = me;
      if (changed) {
        worker = (await api<{ worker: Worker }>('PATCH', '/worker/me', { headline: headline.trim() || null }))
          .worker;
        onSaved(worker);
        haptic.success();
      }
      rememberDone(me.id);
      onDone(worker.headline && worker.walletAddress ? 'tasks' : 'profile');
    } catch (e) {
      setError(e);
      haptic.error();
    } finally {
      setBusy(false);
    }
  };
  const native = useMainButton({ text: t('onboarding.continue'), onClick: () => void next(), busy });

  return (
    <div className="first-launch">
      <h1 className="screen-title">{t('onboarding.title', { name: me.firstName })}</h1>
      <p className="lead">{t('onboarding.line1')}</p>
      <p className="lead">{t('onboarding.line2')}</p>
      <Section title={t('onboarding.needs')} footer={t('onboarding.headlineHint')} plain>
        <label>
          <span>{t('onboarding.headline')}</span>
          <input
            value={headline}
            maxLength={200}
            onChange={(e) => setHeadline(e.target.value)}
            placeholder={t('onboarding.headlinePlaceholder')}
          />
        </label>
      </Section>
      <WalletSection me={me} onSaved={onSaved} />
      <ErrorNote error={error} />
      {native ? null : (
        <button type="button" className="wide" onClick={() => void next()} disabled={busy}>
          {t('onboarding.continue')}
        </button>
      )}
    </div>
  );
}
