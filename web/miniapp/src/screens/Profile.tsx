import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, type Worker } from '../api';
import { formatDate } from '../format';
import { changeLanguage, currentLanguage, i18next, LANGUAGES } from '../i18n';
import { haptic, useClosingConfirmation, useMainButton } from '../telegram';
import { ErrorNote } from '../ui';
import { BlockedAgents } from './TaskSafety';
import { WalletSection } from './Wallet';

type Missing = 'wallet' | 'headline' | 'skill' | 'available';

/** What an agent's worker search needs before it lists someone (the catalog's rule). */
export function missingForCatalog(me: Worker): Missing[] {
  const missing: Missing[] = [];
  if (!me.walletAddress) missing.push('wallet');
  if (!me.headline.trim()) missing.push('headline');
  if (me.skills.length === 0) missing.push('skill');
  if (!me.available) missing.push('available');
  return missing;
}

/** The phone's own time zone (IANA), which the profile offers first. */
function phoneTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** Every zone the phone knows, with the phone's and the saved one first. */
function timeZoneChoices(saved: string | null): string[] {
  const all = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  const first = [phoneTimeZone(), ...(saved ? [saved] : [])];
  return [...new Set([...first, ...all])];
}

function formOf(me: Worker) {
  return {
    headline: me.headline,
    skills: me.skills.join(', '),
    hourlyRate: me.hourlyRate ?? '',
    country: me.country ?? '',
    timezone: me.timezone ?? '',
    available: me.available,
    showTelegram: me.showTelegram,
  };
}
type Form = ReturnType<typeof formOf>;

function skillsOf(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Whether the form says anything the saved profile does not (blank edits and spacing aside). */
function changed(form: Form, me: Worker): boolean {
  const saved = formOf(me);
  return (
    form.headline.trim() !== saved.headline.trim() ||
    skillsOf(form.skills).join(',') !== skillsOf(saved.skills).join(',') ||
    form.hourlyRate.trim() !== saved.hourlyRate.trim() ||
    form.country.trim() !== saved.country.trim() ||
    form.timezone !== saved.timezone ||
    form.available !== saved.available ||
    form.showTelegram !== saved.showTelegram
  );
}

export function ProfileScreen({ me, onSaved }: { me: Worker; onSaved: (worker: Worker) => void }) {
  const { t } = useTranslation();
  const [form, setForm] = useState(() => formOf(me));
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  const dirty = changed(form, me);
  const set = (patch: Partial<Form>) => {
    setForm((f) => ({ ...f, ...patch }));
    setSaved(false);
  };

  const save = async () => {
    setBusy(true);
    setError(null);
    try {
      const { worker } = await api<{ worker: Worker }>('PATCH', '/worker/me', {
        headline: form.headline.trim() || null,
        skills: skillsOf(form.skills),
        hourlyRate: form.hourlyRate.trim() || null,
        country: form.country.trim() || null,
        timezone: form.timezone || null,
        available: form.available,
        showTelegram: form.showTelegram,
      });
      onSaved(worker);
      setForm(formOf(worker));
      setSaved(true);
      haptic.success();
    } catch (e) {
      setError(e);
      haptic.error();
    } finally {
      setBusy(false);
    }
  };
  // Save shows only while there is something to save; closing the app then asks first.
  const native = useMainButton(dirty ? { text: t('profile.save'), onClick: () => void save(), busy } : null);
  useClosingConfirmation(dirty);
  const missing = missingForCatalog(me);
  const zones = useMemo(() => timeZoneChoices(me.timezone), [me.timezone]);
  const phoneZone = phoneTimeZone();
  const list = new Intl.ListFormat(currentLanguage(), { type: 'conjunction' });

  return (
    <>
      <div className={missing.length === 0 ? 'notice ok' : 'notice'} role="status">
        {missing.length === 0 ? (
          <p>{t('profile.listed')}</p>
        ) : (
          <p>
            {t('profile.notListed', {
              missing: list.format(missing.map((m) => t(`profile.missing.${m}`))),
            })}
          </p>
        )}
      </div>
      <WalletSection me={me} onSaved={onSaved} />
      <LanguagePicker onSaved={onSaved} />
      <form
        className="section stack profile-form"
        aria-label={t('profile.title')}
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <h2>{t('profile.title')}</h2>
        <p className="muted small profile-since">
          {t('profile.since', { date: formatDate(me.memberSince), count: me.completedTasks })}
        </p>
        <label>
          <span>{t('profile.headline')}</span>
          <input
            value={form.headline}
            maxLength={200}
            onChange={(e) => set({ headline: e.target.value })}
            placeholder={t('profile.headlineExample')}
          />
        </label>
        <label>
          <span>{t('profile.skills')}</span>
          <input
            value={form.skills}
            onChange={(e) => set({ skills: e.target.value })}
            placeholder={t('profile.skillsExample')}
          />
        </label>
        <label>
          <span>{t('profile.hourlyRate')}</span>
          <input
            inputMode="decimal"
            value={form.hourlyRate}
            onChange={(e) => set({ hourlyRate: e.target.value })}
            placeholder="10"
          />
        </label>
        <label>
          <span>{t('profile.country')}</span>
          <input value={form.country} maxLength={100} onChange={(e) => set({ country: e.target.value })} />
        </label>
        <label>
          <span>{t('profile.timezone')}</span>
          <select value={form.timezone} onChange={(e) => set({ timezone: e.target.value })}>
            <option value="">{t('profile.timezoneNotSet')}</option>
            {zones.map((zone) => (
              <option key={zone} value={zone}>
                {zone === phoneZone ? t('profile.timezonePhone', { zone }) : zone}
              </option>
            ))}
          </select>
        </label>
        {form.timezone !== phoneZone ? (
          <button type="button" className="use-phone-zone" onClick={() => set({ timezone: phoneZone })}>
            {t('profile.timezoneUsePhone', { zone: phoneZone })}
          </button>
        ) : null}
        <Switch
          label={t('settings.available')}
          hint={t('settings.availableHint')}
          checked={form.available}
          onChange={(available) => set({ available })}
        />
        <Switch
          label={t('settings.showTelegram')}
          hint={t('settings.showTelegramHint')}
          checked={form.showTelegram}
          onChange={(showTelegram) => set({ showTelegram })}
        />
        <ErrorNote error={error} />
        {saved ? (
          <p className="notice ok" role="status">
            {t('profile.saved')}
          </p>
        ) : null}
        {native || !dirty ? null : (
          <button type="submit" disabled={busy}>
            {t('profile.save')}
          </button>
        )}
      </form>
      <BlockedAgents />
    </>
  );
}

/** An on/off setting as a switch (a checkbox with the switch role, which screen readers announce). */
function Switch(props: { label: string; hint: string; checked: boolean; onChange: (on: boolean) => void }) {
  return (
    <label className="switch-row">
      <span className="switch-text">
        <span className="switch-label">{props.label}</span>
        <span className="muted small">{props.hint}</span>
      </span>
      <input
        type="checkbox"
        role="switch"
        className="switch"
        checked={props.checked}
        aria-checked={props.checked}
        onChange={(e) => {
          haptic.tap();
          props.onChange(e.target.checked);
        }}
      />
    </label>
  );
}

/**
 * The app's and the bot's language: each language listed by its own name (its file's
 * `language.name`), saved at once and switching the screens with it.
 */
function LanguagePicker({ onSaved }: { onSaved: (worker: Worker) => void }) {
  const { t, i18n } = useTranslation();
  // The tapped language shows as chosen at once, while it is saved.
  const [pending, setPending] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const busy = pending !== null;
  const choose = async (language: string) => {
    if (language === i18n.language) return;
    setPending(language);
    setError(null);
    haptic.tap();
    try {
      const { worker } = await api<{ worker: Worker }>('PATCH', '/worker/me', { language });
      await changeLanguage(worker.language);
      onSaved(worker);
      haptic.success();
    } catch (e) {
      setError(e);
      haptic.error();
    } finally {
      setPending(null);
    }
  };
  return (
    <fieldset className="section language-picker" disabled={busy}>
      <legend>{t('settings.language')}</legend>
      <p className="muted small language-hint">{t('settings.languageHint')}</p>
      <div className="language-list">
        {LANGUAGES.map((code) => (
          <label key={code} className="language-option" lang={code}>
            <input
              type="radio"
              name="language"
              value={code}
              checked={(pending ?? i18n.language) === code}
              onChange={() => void choose(code)}
            />
            <span>{i18next.t('language.name', { lng: code })}</span>
          </label>
        ))}
      </div>
      <ErrorNote error={error} />
    </fieldset>
  );
}
