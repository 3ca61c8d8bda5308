import { useState } from 'react';
import { api, type Worker } from '../api';
import { haptic, useMainButton } from '../telegram';
import { ErrorNote } from '../ui';
import { WalletSection } from './Wallet';

/** What an agent's worker search needs before it lists someone (the catalog's rule). */
export function missingForCatalog(me: Worker): string[] {
  const missing: string[] = [];
  if (!me.walletAddress) missing.push('a wallet');
  if (!me.headline.trim()) missing.push('a headline');
  if (me.skills.length === 0) missing.push('at least one skill');
  if (!me.available) missing.push('“available for work” switched on');
  return missing;
}

export function ProfileScreen({ me, onSaved }: { me: Worker; onSaved: (worker: Worker) => void }) {
  const [form, setForm] = useState({
    headline: me.headline,
    skills: me.skills.join(', '),
    hourlyRate: me.hourlyRate ?? '',
    country: me.country ?? '',
    timezone: me.timezone ?? (Intl.DateTimeFormat().resolvedOptions().timeZone || ''),
    available: me.available,
    showTelegram: me.showTelegram,
  });
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  const set = (patch: Partial<typeof form>) => {
    setForm((f) => ({ ...f, ...patch }));
    setSaved(false);
  };

  const save = async () => {
    setBusy(true);
    setError(null);
    try {
      const skills = form.skills
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const { worker } = await api<{ worker: Worker }>('PATCH', '/worker/me', {
        headline: form.headline.trim() || null,
        skills,
        hourlyRate: form.hourlyRate.trim() || null,
        country: form.country.trim() || null,
        timezone: form.timezone.trim() || null,
        available: form.available,
        showTelegram: form.showTelegram,
      });
      onSaved(worker);
      setSaved(true);
      haptic.success();
    } catch (e) {
      setError(e);
      haptic.error();
    } finally {
      setBusy(false);
    }
  };
  const native = useMainButton({ text: 'Save profile', onClick: save, busy });
  const missing = missingForCatalog(me);

  return (
    <>
      <div className={missing.length === 0 ? 'notice ok' : 'notice'} role="status">
        {missing.length === 0 ? (
          <p>Agents can find you in their worker search.</p>
        ) : (
          <p>
            You appear to agents once you have a wallet, a headline, at least one skill and are available for
            work. Still missing: {missing.join(', ')}.
          </p>
        )}
      </div>
      <WalletSection me={me} onSaved={onSaved} />
      <form
        className="section stack"
        aria-label="Profile"
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <h2>Profile</h2>
        <label>
          <span>Headline</span>
          <input
            value={form.headline}
            maxLength={200}
            onChange={(e) => set({ headline: e.target.value })}
            placeholder="Photographer in Lisbon, fast and careful"
          />
        </label>
        <label>
          <span>Skills (comma-separated)</span>
          <input
            value={form.skills}
            onChange={(e) => set({ skills: e.target.value })}
            placeholder="photography, errands"
          />
        </label>
        <label>
          <span>Hourly rate, TON</span>
          <input
            inputMode="decimal"
            value={form.hourlyRate}
            onChange={(e) => set({ hourlyRate: e.target.value })}
            placeholder="10"
          />
        </label>
        <label>
          <span>Country</span>
          <input value={form.country} maxLength={100} onChange={(e) => set({ country: e.target.value })} />
        </label>
        <label>
          <span>Time zone</span>
          <input
            value={form.timezone}
            maxLength={100}
            onChange={(e) => set({ timezone: e.target.value })}
            placeholder="Europe/Lisbon"
          />
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={form.available}
            onChange={(e) => set({ available: e.target.checked })}
          />
          <span>Available for work</span>
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={form.showTelegram}
            onChange={(e) => set({ showTelegram: e.target.checked })}
          />
          <span>Show my Telegram username to agents</span>
        </label>
        <ErrorNote error={error} />
        {saved ? (
          <p className="notice ok" role="status">
            Profile saved.
          </p>
        ) : null}
        {native ? null : (
          <button type="submit" disabled={busy}>
            Save profile
          </button>
        )}
      </form>
    </>
  );
}
