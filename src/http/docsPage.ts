import type { FastifyInstance } from 'fastify';

/**
 * The API reference at /docs: a page of our own that renders /openapi.json in the browser. It
 * loads nothing from any other origin (its Content-Security-Policy says so) and shows nothing but
 * Handoff's document: no vendor buttons, fonts, telemetry or "try it" proxy.
 */
export function registerDocsPage(app: FastifyInstance): void {
  const hidden = { schema: { hide: true } };
  app.get('/docs', hidden, async (_request, reply) =>
    reply.headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(HTML),
  );
  app.get('/docs/docs.js', hidden, async (_request, reply) =>
    reply.headers(PAGE_HEADERS).type('text/javascript; charset=utf-8').send(SCRIPT),
  );
  app.get('/docs/docs.css', hidden, async (_request, reply) =>
    reply.headers(PAGE_HEADERS).type('text/css; charset=utf-8').send(STYLE),
  );
}

export const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const PAGE_HEADERS = {
  'content-security-policy': DOCS_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

const HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Handoff API reference</title>
<link rel="icon" href="/favicon.ico">
<link rel="stylesheet" href="/docs/docs.css">
<script src="/docs/docs.js" defer></script>
</head>
<body>
<nav id="nav"></nav>
<main id="main"><p>Loading the API reference from <a href="/openapi.json">/openapi.json</a>…</p></main>
</body>
</html>
`;

const STYLE = `
* { box-sizing: border-box; }
body { margin: 0; display: flex; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1d2330; background: #fff; }
nav { width: 290px; flex: none; height: 100vh; overflow: auto; position: sticky; top: 0; padding: 16px; background: #f5f6f8; border-right: 1px solid #e3e5ea; font-size: 13px; }
nav h2 { font-size: 12px; text-transform: uppercase; letter-spacing: .05em; color: #6a7080; margin: 18px 0 6px; }
nav a { display: block; padding: 2px 0; color: #1d2330; text-decoration: none; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
nav a:hover { color: #0a66d8; }
main { flex: 1; min-width: 0; padding: 24px 40px 80px; max-width: 1100px; }
h1 { margin-top: 0; }
section.op { border-top: 1px solid #e3e5ea; padding: 18px 0; }
.method { display: inline-block; min-width: 58px; text-align: center; font: 600 12px/20px ui-monospace, monospace; border-radius: 4px; color: #fff; margin-right: 8px; }
.get { background: #2b7de9; } .post { background: #1f9d55; } .patch { background: #c47f00; } .put { background: #8a5cd1; } .delete { background: #d64545; }
code, .path { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 13px; }
.path { font-weight: 600; }
.meta { color: #6a7080; font-size: 13px; }
table { border-collapse: collapse; width: 100%; margin: 6px 0 12px; font-size: 13px; }
td, th { text-align: left; vertical-align: top; padding: 4px 8px; border-bottom: 1px solid #eef0f3; }
th { color: #6a7080; font-weight: 500; }
td.name { font-family: ui-monospace, monospace; white-space: nowrap; }
.req { color: #d64545; font-size: 11px; }
.type { color: #8a5cd1; font-family: ui-monospace, monospace; white-space: nowrap; }
.status { font-weight: 600; font-family: ui-monospace, monospace; }
details { margin: 4px 0; } summary { cursor: pointer; }
.nested { margin-left: 18px; border-left: 2px solid #eef0f3; padding-left: 8px; }
.search { position: sticky; top: -16px; background: #f5f6f8; padding: 8px 0; }
.search input { width: 100%; padding: 6px 8px; font: inherit; border: 1px solid #c9cdd6; border-radius: 6px; }
.search p { margin: 4px 0 0; }
.snippet { margin: 6px 0 10px; }
.snippet .label { font-size: 12px; color: #6a7080; margin-bottom: 2px; }
pre { margin: 0; padding: 10px 12px; background: #f5f6f8; border: 1px solid #e3e5ea; border-radius: 6px; overflow: auto; font-size: 12.5px; line-height: 1.45; }
pre code { font-size: inherit; }
`;

// Plain browser JavaScript, served as is: it builds the page with DOM calls and textContent only,
// so nothing in the document can inject markup.
const SCRIPT = `
(function () {
  'use strict';
  var doc;
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { if (k === 'text') node.textContent = attrs[k]; else node.setAttribute(k, attrs[k]); });
    (children || []).forEach(function (c) { if (c) node.appendChild(typeof c === 'string' ? document.createTextNode(c) : c); });
    return node;
  }
  function resolve(schema) {
    var seen = 0;
    while (schema && schema.$ref && seen++ < 20) {
      var name = schema.$ref.split('/').pop();
      schema = Object.assign({ 'x-name': name }, doc.components.schemas[name]);
    }
    return schema || {};
  }
  // A parameter may be a reference to a shared one (the Idempotency-Key header): show it by name.
  function parameter(p) {
    var seen = 0;
    while (p && p.$ref && seen++ < 20) p = (doc.components.parameters || {})[p.$ref.split('/').pop()] || {};
    return p || {};
  }
  function typeOf(schema) {
    var s = resolve(schema);
    if (s.anyOf || s.oneOf) return (s.anyOf || s.oneOf).map(typeOf).join(' | ');
    if (s.enum) return s.enum.map(function (v) { return JSON.stringify(v); }).join(' | ');
    if (s.const !== undefined) return JSON.stringify(s.const);
    var t = Array.isArray(s.type) ? s.type.join(' | ') : (s.type || 'any');
    if (t === 'array') return typeOf(s.items || {}) + '[]';
    if (s['x-name']) return s['x-name'];
    return t + (s.format ? ' (' + s.format + ')' : '');
  }
  function limits(s) {
    var out = [];
    if (s.minLength !== undefined || s.maxLength !== undefined) out.push('length ' + (s.minLength || 0) + '-' + (s.maxLength === undefined ? '∞' : s.maxLength));
    if (s.minimum !== undefined || s.maximum !== undefined) out.push('from ' + (s.minimum === undefined ? '-∞' : s.minimum) + ' to ' + (s.maximum === undefined ? '∞' : s.maximum));
    if (s.maxItems !== undefined) out.push('at most ' + s.maxItems + ' items');
    if (s.default !== undefined) out.push('default ' + JSON.stringify(s.default));
    if (s.pattern) out.push('pattern ' + s.pattern);
    return out.join('; ');
  }
  function objectOf(schema) {
    var s = resolve(schema);
    if (s.type === 'array') return objectOf(s.items || {});
    if (s.anyOf || s.oneOf) {
      var objs = (s.anyOf || s.oneOf).map(resolve).filter(function (b) { return b.properties; });
      return objs.length === 1 ? objs[0] : null;
    }
    return s.properties ? s : null;
  }
  // A response that is one of several objects lists each with its fields.
  function variantsOf(schema) {
    var s = resolve(schema);
    var branches = s.anyOf || s.oneOf;
    if (!branches) return null;
    var objects = branches.filter(function (b) { return objectOf(b); });
    return objects.length > 1 ? branches : null;
  }
  // The document's texts are markdown-ish: \`code\` becomes a <code> element (built with
  // textContent like everything else); an unmatched backtick stays as typed.
  function prose(text) {
    var pieces = String(text || '').split('\`');
    var out = el('span', {}, []);
    pieces.forEach(function (piece, i) {
      if (i % 2 === 1 && i < pieces.length - 1) out.appendChild(el('code', { text: piece }));
      else out.appendChild(document.createTextNode((i % 2 === 1 ? '\`' : '') + piece));
    });
    return out;
  }
  function fields(schema, depth) {
    var s = objectOf(schema);
    if (!s) return null;
    var required = s.required || [];
    var rows = Object.keys(s.properties).map(function (name) {
      var prop = s.properties[name];
      var r = resolve(prop);
      var desc = [r.description || prop.description || '', limits(r)].filter(Boolean).join(' · ');
      var nested = depth < 6 ? fields(prop, depth + 1) : null;
      return el('tr', {}, [
        el('td', { class: 'name' }, [name, required.indexOf(name) >= 0 ? el('span', { class: 'req', text: ' required' }) : null]),
        el('td', { class: 'type', text: typeOf(prop) }),
        el('td', {}, [prose(desc), nested ? el('details', {}, [el('summary', { text: 'fields' }), el('div', { class: 'nested' }, [nested])]) : null]),
      ]);
    });
    return el('table', {}, [el('tr', {}, [el('th', { text: 'field' }), el('th', { text: 'type' }), el('th', { text: 'meaning' })])].concat(rows));
  }
  function schemaBlock(schema) {
    var table = fields(schema, 0);
    if (table) return table;
    var variants = variantsOf(schema);
    if (variants) {
      return el('div', {}, [el('p', { class: 'meta', text: 'One of ' + variants.length + ':' })].concat(variants.map(function (v, i) {
        var r = resolve(v);
        return el('details', { open: '' }, [
          el('summary', {}, [el('span', { class: 'type', text: r['x-name'] || r.title || 'variant ' + (i + 1) }), r.description ? ' · ' : '', r.description ? prose(r.description) : null]),
          el('div', { class: 'nested' }, [schemaBlock(v)]),
        ]);
      })));
    }
    var s = resolve(schema);
    return el('p', { class: 'meta' }, [el('span', { class: 'type', text: typeOf(schema) }), s.description ? ' · ' : '', s.description ? prose(s.description) : null]);
  }
  // Examples and snippets. Backslashes and newlines are made with fromCharCode: this script is
  // served from a template string, where they would need escaping twice.
  var BS = String.fromCharCode(92);
  var NL = String.fromCharCode(10);
  var AUTH = {
    agentKey: 'Authorization: Bearer $HANDOFF_API_KEY',
    adminToken: 'Authorization: Bearer $ADMIN_TOKEN',
    telegramInitData: 'Authorization: tma $INIT_DATA',
  };
  function exampleOf(content) {
    if (!content) return undefined;
    if (content.example !== undefined) return content.example;
    var first = content.examples && Object.keys(content.examples)[0];
    return first ? content.examples[first].value : undefined;
  }
  function shellQuote(text) {
    return "'" + text.split("'").join("'" + '"' + "'" + '"' + "'") + "'";
  }
  function schemeOf(op) {
    return op.security && op.security[0] ? Object.keys(op.security[0])[0] : null;
  }
  function curlSnippet(path, method, op, params, body) {
    var url = '$BASE' + path.replace(/[{]([A-Za-z]+)[}]/g, function (_, name) { return '$' + name.toUpperCase(); });
    var lines = ['curl -sS -X ' + method.toUpperCase() + ' "' + url + '"'];
    if (AUTH[schemeOf(op)]) lines.push('-H "' + AUTH[schemeOf(op)] + '"');
    params.forEach(function (p) {
      if (p.in === 'header' && p.name === 'Idempotency-Key') lines.push('-H "Idempotency-Key: $(uuidgen)"');
    });
    if (body !== undefined) {
      lines.push("-H 'content-type: application/json'");
      lines.push('-d ' + shellQuote(JSON.stringify(body)));
    }
    return lines.join(' ' + BS + NL + '  ');
  }
  function sdkSnippet(path, method, params, body) {
    var inPath = params.filter(function (p) { return p.in === 'path'; }).map(function (p) { return p.name; });
    var inQuery = params.filter(function (p) { return p.in === 'query'; }).map(function (p) { return p.name; });
    var groups = [];
    if (inPath.length) groups.push('path: { ' + inPath.join(', ') + ' }');
    if (inQuery.length) groups.push('query: { /* ' + inQuery.join(', ') + ' */ }');
    var options = [];
    if (groups.length) options.push('params: { ' + groups.join(', ') + ' }');
    if (body !== undefined) options.push('body: ' + JSON.stringify(body));
    return 'const { data, error } = await handoff.api.' + method.toUpperCase() + "('" + path + "'" +
      (options.length ? ', { ' + options.join(', ') + ' }' : '') + ');';
  }
  function codeBlock(label, text, kind) {
    return el('div', { class: 'snippet' }, [el('div', { class: 'label', text: label }), el('pre', { class: kind }, [el('code', { text: text })])]);
  }
  // The search box: every word typed must occur in an operation's method, path, summary,
  // description, operationId, tag or parameter names; the rest are hidden, in the list and the page.
  function searchBox(groups) {
    var input = el('input', { type: 'search', id: 'search', placeholder: 'Search: path, summary, field…', 'aria-label': 'Search the operations', autocomplete: 'off' });
    var count = el('p', { class: 'meta', id: 'search-count', 'aria-live': 'polite' });
    var total = groups.reduce(function (n, g) { return n + g.entries.length; }, 0);
    input.addEventListener('input', function () {
      var words = input.value.toLowerCase().split(' ').filter(Boolean);
      var shown = 0;
      groups.forEach(function (g) {
        var any = false;
        g.entries.forEach(function (e) {
          var hit = words.every(function (w) { return e.text.indexOf(w) >= 0; });
          e.link.style.display = hit ? '' : 'none';
          e.section.style.display = hit ? '' : 'none';
          if (hit) { shown++; any = true; }
        });
        g.heads.forEach(function (h) { h.style.display = any ? '' : 'none'; });
      });
      count.textContent = words.length ? (shown ? shown + ' of ' + total + ' match' : 'Nothing matches “' + input.value + '”') : '';
    });
    return el('div', { class: 'search' }, [input, count]);
  }
  function operation(path, method, op, anchor, hook) {
    var parts = [el('h3', { id: anchor }, [el('span', { class: 'method ' + method, text: method.toUpperCase() }), el('span', { class: 'path', text: path })])];
    if (op.summary) parts.push(el('p', {}, [prose(op.summary)]));
    if (op.description) parts.push(el('p', { class: 'meta' }, [prose(op.description)]));
    parts.push(el('p', { class: 'meta' }, ['operationId ', el('code', { text: op.operationId || '?' }), op.security && op.security.length ? ' · auth: ' + op.security.map(function (x) { return Object.keys(x)[0]; }).join(', ') : ' · no auth']));
    var params = (op.parameters || []).map(parameter);
    if (params.length) {
      parts.push(el('h4', { text: 'Parameters' }));
      parts.push(el('table', {}, [el('tr', {}, [el('th', { text: 'name' }), el('th', { text: 'in' }), el('th', { text: 'type' }), el('th', { text: 'meaning' })])].concat(params.map(function (p) {
        var s = resolve(p.schema || {});
        return el('tr', {}, [el('td', { class: 'name' }, [p.name, p.required ? el('span', { class: 'req', text: ' required' }) : null]), el('td', { text: p.in }), el('td', { class: 'type', text: typeOf(s) }), el('td', {}, [prose([p.description || s.description || '', limits(s)].filter(Boolean).join(' · '))])]);
      }))));
    }
    var body = op.requestBody && op.requestBody.content;
    var bodyExample;
    if (body) {
      Object.keys(body).forEach(function (type) {
        parts.push(el('h4', {}, ['Request body ', el('span', { class: 'meta', text: type })]));
        parts.push(schemaBlock(body[type].schema || {}));
        var example = exampleOf(body[type]);
        if (example !== undefined && type === 'application/json') bodyExample = example;
        if (example !== undefined) parts.push(codeBlock(hook ? 'Example payload' : 'Example request body', JSON.stringify(example, null, 2), 'json'));
      });
    }
    if (!hook) {
      parts.push(el('h4', { text: 'Call it' }));
      parts.push(codeBlock('curl', curlSnippet(path, method, op, params, bodyExample), 'curl'));
      if (schemeOf(op) === 'agentKey') parts.push(codeBlock('TypeScript SDK (@handoff/sdk)', sdkSnippet(path, method, params, bodyExample), 'sdk'));
    }
    parts.push(el('h4', { text: 'Responses' }));
    Object.keys(op.responses || {}).forEach(function (status) {
      var res = op.responses[status];
      var content = res.content && (res.content['application/json'] || res.content[Object.keys(res.content)[0]]);
      var example = exampleOf(content);
      parts.push(el('details', status.charAt(0) === '2' ? { open: '' } : {}, [
        el('summary', {}, [el('span', { class: 'status', text: status }), ' ', prose(res.description)]),
        content && content.schema ? el('div', { class: 'nested' }, [schemaBlock(content.schema)]) : null,
        example !== undefined ? el('div', { class: 'nested' }, [codeBlock('Example', JSON.stringify(example, null, 2), 'json')]) : null,
      ]));
    });
    return el('section', { class: 'op' }, parts);
  }
  function render() {
    var nav = document.getElementById('nav');
    var main = document.getElementById('main');
    main.textContent = '';
    main.appendChild(el('h1', { text: doc.info.title + ' ' + doc.info.version }));
    main.appendChild(el('p', {}, [prose(doc.info.description)]));
    main.appendChild(el('p', { class: 'meta' }, ['Server ', el('code', { text: (doc.servers && doc.servers[0] && doc.servers[0].url) || '' }), ' · the document: ', el('a', { href: '/openapi.json', text: '/openapi.json' })]));
    nav.appendChild(el('strong', { text: doc.info.title }));
    var byTag = {};
    var n = 0;
    Object.keys(doc.paths).forEach(function (path) {
      Object.keys(doc.paths[path]).forEach(function (method) {
        var op = doc.paths[path][method];
        var tag = (op.tags && op.tags[0]) || 'Other';
        (byTag[tag] = byTag[tag] || []).push({ path: path, method: method, op: op, anchor: 'op-' + (op.operationId || n++) });
      });
    });
    var order = (doc.tags || []).map(function (t) { return t.name; });
    Object.keys(byTag).forEach(function (t) { if (order.indexOf(t) < 0) order.push(t); });
    var groups = [];
    var list = el('div', { id: 'ops' });
    function searchable(o, tag) {
      var names = (o.op.parameters || []).map(parameter).map(function (p) { return p.name; });
      return [o.method, o.path, o.op.summary, o.op.description, o.op.operationId, tag].concat(names).join(' ').toLowerCase();
    }
    function group(tag, title, headingId, info, entries, hook) {
      var navHead = el('h2', { text: tag });
      var mainHead = el('h2', { id: headingId, text: title });
      var g = { heads: [navHead, mainHead], entries: [] };
      list.appendChild(navHead);
      main.appendChild(mainHead);
      if (info && info.description) {
        var about = el('p', { class: 'meta' }, [prose(info.description)]);
        g.heads.push(about);
        main.appendChild(about);
      }
      entries.forEach(function (o) {
        var link = el('a', { href: '#' + o.anchor, title: o.op.summary || '' }, [el('span', { class: 'method ' + o.method, text: hook ? 'EVENT' : o.method.toUpperCase() }), o.path]);
        var section = operation(o.path, o.method, o.op, o.anchor, hook);
        list.appendChild(link);
        main.appendChild(section);
        g.entries.push({ link: link, section: section, text: searchable(o, tag) });
      });
      groups.push(g);
    }
    order.filter(function (t) { return byTag[t]; }).forEach(function (tag) {
      var info = (doc.tags || []).filter(function (t) { return t.name === tag; })[0];
      group(tag, tag, 'tag-' + tag, info, byTag[tag], false);
    });
    var hooks = Object.keys(doc.webhooks || {}).map(function (name) {
      return { path: name, method: 'post', op: doc.webhooks[name].post, anchor: 'hook-' + name };
    });
    if (hooks.length) group('Webhooks', 'Webhooks (posted to your URL)', 'webhooks', null, hooks, true);
    nav.appendChild(searchBox(groups));
    nav.appendChild(list);
    if (location.hash) { var target = document.getElementById(location.hash.slice(1)); if (target) target.scrollIntoView(); }
  }
  fetch('/openapi.json').then(function (r) { return r.json(); }).then(function (d) { doc = d; render(); }).catch(function (e) {
    document.getElementById('main').textContent = 'Could not load /openapi.json: ' + e;
  });
})();
`;
