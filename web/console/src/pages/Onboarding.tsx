/**
 * The first steps of a new owner, each ticked from what exists (not from clicks): a live API key,
 * a first deposit, a first task. Shown until all three are done; it points to the API reference
 * (/docs) and a copyable SDK quick start for this agent.
 */
export function Onboarding({
  hasKey,
  toppedUp,
  posted,
}: {
  hasKey: boolean;
  toppedUp: boolean;
  posted: boolean;
}) {
  if (hasKey && toppedUp && posted) return null;
  const steps: [boolean, string, string][] = [
    [hasKey, 'Create an API key', 'Creating an agent makes its first key; more under API keys.'],
    [toppedUp, 'Top up the balance', 'Send TON to the deposit address with the memo (Top up, below).'],
    [
      posted,
      'Post a first task',
      'Your agent calls POST /tasks with its key; the task shows up under Tasks.',
    ],
  ];
  const done = steps.filter(([ok]) => ok).length;
  return (
    <section className="card onboarding" aria-labelledby="onboarding-title">
      <h2 id="onboarding-title">Getting started</h2>
      <p className="muted">
        {done} of {steps.length} done
      </p>
      <ol className="checklist">
        {steps.map(([ok, title, hint]) => (
          <li key={title} className={ok ? 'done' : ''}>
            <span className="tick" aria-hidden="true">
              {ok ? '✓' : ''}
            </span>
            <span>
              <strong>{title}</strong>
              <span className="sr-only">{ok ? ' (done)' : ' (to do)'}</span>
              <br />
              <span className="muted">{hint}</span>
            </span>
          </li>
        ))}
      </ol>
      <p>
        <a href="/docs">API reference</a> · <a href="#sdk-quick-start">SDK quick start</a>
      </p>
    </section>
  );
}

/** A few lines that post a task with the TypeScript SDK, against this server. */
export function SdkQuickStart() {
  const origin = window.location.origin;
  return (
    <section className="card" aria-labelledby="sdk-quick-start">
      <h2 id="sdk-quick-start">SDK quick start</h2>
      <p>
        With the TypeScript SDK (<code>@handoff/sdk</code>) and your API key in <code>HANDOFF_API_KEY</code>:
      </p>
      <pre className="code">
        <code>{`import { Handoff, unwrap } from '@handoff/sdk';

const handoff = new Handoff({ baseUrl: '${origin}', apiKey: process.env.HANDOFF_API_KEY! });
const { task } = unwrap(await handoff.api.POST('/tasks', {
  body: { title: 'Photograph the storefront', description: 'Two photos in daylight', reward: '2' },
}));
console.log(task.id, task.status);`}</code>
      </pre>
      <p className="muted">
        Every endpoint, field and error is in the <a href="/docs">API reference</a>.
      </p>
    </section>
  );
}
