import type { FastifyInstance } from 'fastify';

/**
 * Every route the app registered, as "METHOD /path/{param}" (HEAD left out: Fastify adds it to
 * every GET). Read from Fastify's own route tree, so a route added without a place in the
 * OpenAPI document or in the fuzzer's list of the others shows up here and fails the coverage check.
 */
export function registeredRoutes(app: FastifyInstance): string[] {
  const routes: string[] = [];
  const prefixes: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([│ ]*)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!match) continue;
    const depth = match[1]!.length / 4;
    const path = (prefixes[depth - 1] ?? '') + match[2]!;
    prefixes[depth] = path;
    prefixes.length = depth + 1;
    // The tree prints "/app/*" as "/app" with a child "*".
    for (const method of (match[3] ?? '').split(', ').filter((m) => m && m !== 'HEAD'))
      routes.push(`${method} ${path.replace(/:(\w+)/g, '{$1}').replace(/\/?\*$/, '/{rest}')}`);
  }
  return routes;
}
