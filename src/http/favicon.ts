import type { FastifyInstance } from 'fastify';

/** 16 x 16 pixels: the letter H in white on Handoff's blue, drawn below as rows (# = white). */
const SIZE = 16;
const GLYPH = [
  '................',
  '................',
  '................',
  '...##......##...',
  '...##......##...',
  '...##......##...',
  '...##......##...',
  '...##########...',
  '...##########...',
  '...##......##...',
  '...##......##...',
  '...##......##...',
  '...##......##...',
  '................',
  '................',
  '................',
];
const BLUE = [0xd8, 0x66, 0x0a, 0xff]; // #0a66d8 as B, G, R, A
const WHITE = [0xff, 0xff, 0xff, 0xff];

/**
 * A Windows icon (the format /favicon.ico is asked for) holding one 32-bit bitmap: a 6-byte
 * header, one 16-byte directory entry, a 40-byte BITMAPINFOHEADER (height doubled for the mask),
 * the pixels bottom row first, then the 1-bit transparency mask (all opaque). Made here rather
 * than kept as a binary file: it is 1,150 bytes that a reader can check.
 */
export function faviconIco(): Buffer {
  const pixels = Buffer.alloc(SIZE * SIZE * 4);
  for (let row = 0; row < SIZE; row++) {
    const line = GLYPH[SIZE - 1 - row]!;
    for (let col = 0; col < SIZE; col++) {
      Buffer.from(line[col] === '#' ? WHITE : BLUE).copy(pixels, (row * SIZE + col) * 4);
    }
  }
  const mask = Buffer.alloc(SIZE * 4); // 16 rows of 32 bits (rows are padded to 4 bytes)
  const info = Buffer.alloc(40);
  info.writeUInt32LE(40, 0);
  info.writeInt32LE(SIZE, 4);
  info.writeInt32LE(SIZE * 2, 8);
  info.writeUInt16LE(1, 12);
  info.writeUInt16LE(32, 14);
  info.writeUInt32LE(pixels.length + mask.length, 20);
  const image = Buffer.concat([info, pixels, mask]);
  const header = Buffer.alloc(6 + 16);
  header.writeUInt16LE(1, 2); // type: icon
  header.writeUInt16LE(1, 4); // one image
  header.writeUInt8(SIZE, 6);
  header.writeUInt8(SIZE, 7);
  header.writeUInt16LE(1, 10); // planes
  header.writeUInt16LE(32, 12); // bits per pixel
  header.writeUInt32LE(image.length, 14);
  header.writeUInt32LE(header.length, 18);
  return Buffer.concat([header, image]);
}

/** GET /favicon.ico for every page of the service (browsers ask for it on their own). */
export function registerFavicon(app: FastifyInstance): void {
  const icon = faviconIco();
  app.get('/favicon.ico', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('image/x-icon').header('cache-control', 'public, max-age=86400').send(icon),
  );
}
