/**
 * A request URL as logs and traces may keep it: the credentials some URLs carry are replaced.
 * A signed upload URL's signature grants the upload until it expires; a stored file's id is the
 * credential of its download (/files/<id>/<name>, a 128-bit random id, as presigned storage URLs
 * are), and the signed upload URL names the same id (/uploads/<id>). So the signature, the id
 * and the file's name go.
 */
const SIGNATURE = /([?&]signature=)[^&#]*/gi;
const FILE_PATH = /^\/(files|uploads)\/[^?#]*/;

export function redactUrl(url: string): string {
  let out = url;
  if (out.startsWith('/files/') || out.startsWith('/uploads/'))
    out = out.replace(FILE_PATH, '/$1/[redacted]');
  if (out.includes('signature=')) out = out.replace(SIGNATURE, '$1[redacted]');
  return out;
}
