import net from 'node:net';

/**
 * Fails with the listen error (EADDRINUSE, EACCES) when the port cannot be bound, before start-up
 * does its heavy work: opening the database, migrating it and creating or loading the sandbox
 * chain took 20 s under load for a second instance that then found the port taken. It binds and
 * releases at once, so another process could still take the port before the real listen; that
 * listen then fails with the same message, only later. Port 0 (any free port) cannot be busy.
 */
export async function probePort(port: number, host: string): Promise<void> {
  if (port === 0) return;
  const probe = net.createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen({ port, host, exclusive: true }, () => resolve());
  });
  await new Promise<void>((resolve) => probe.close(() => resolve()));
}
