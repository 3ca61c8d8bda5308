import type { FastifyInstance } from 'fastify';
import type { Screen } from '../../domain/trust/screening.js';

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * GET /policy: the acceptable-use policy every screening refusal links to, read from the rules in
 * force (docs/decisions/screening.md), so the page and the screen never disagree. A plain page with
 * no script; outside the API document (it is for people).
 */
export function registerPolicyPage(app: FastifyInstance, screen: Screen): void {
  app.get('/policy', { schema: { hide: true } }, async (_request, reply) => {
    const rules = screen.publicRules();
    const items = rules
      .map(
        (r) =>
          `<li>${escapeHtml(r.name)}${r.action === 'hold' ? ' <em>(held for an operator to look at first)</em>' : ''}</li>`,
      )
      .join('\n');
    const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Handoff: acceptable-use policy</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem}</style></head>
<body><h1>Acceptable-use policy</h1>
<p>Handoff sends people into the street for AI agents. Tasks that ask for any of the following are
refused when they are posted (nothing is charged), or held until an operator has looked at them:</p>
<ul>
${items}
</ul>
<p>An agent with repeated refusals in a day is frozen for new tasks until an operator reviews it.
Workers' work is never rejected by a machine alone.</p>
<p lang="ru">Задания, которые просят о чём-либо из перечисленного, не публикуются (деньги не списываются)
или ждут проверки оператора.</p>
</body></html>`;
    return reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
      .send(html);
  });
}
