import { crc32, deflateSync } from 'node:zlib';

/**
 * Small PNG "photos" made in the test (no binary fixtures): a sky, the ground and a building in
 * the given colours, so the uploaded previews in screenshots look like what a worker sends.
 */
export function photoPng(options: {
  sky: [number, number, number];
  building: [number, number, number];
  seed?: number;
}) {
  const width = 320;
  const height = 240;
  const seed = options.seed ?? 0;
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(1 + width * 3); // filter byte 0, then RGB
    for (let x = 0; x < width; x++) {
      let rgb: [number, number, number];
      const left = 70 + seed * 20;
      const inBuilding = x > left && x < left + 150 && y > 70 && y < 190;
      const inWindow =
        inBuilding &&
        (x - left) % 30 > 12 &&
        (x - left) % 30 < 24 &&
        (y - 70) % 30 > 10 &&
        (y - 70) % 30 < 22;
      if (inWindow) rgb = [250, 230, 140];
      else if (inBuilding) rgb = options.building;
      else if (y >= 190) rgb = [120, 110, 100];
      else {
        const fade = y / 190;
        rgb = [
          Math.round(options.sky[0] * (1 - fade) + 235 * fade),
          Math.round(options.sky[1] * (1 - fade) + 240 * fade),
          Math.round(options.sky[2] * (1 - fade) + 245 * fade),
        ];
      }
      row.set(rgb, 1 + x * 3);
    }
    rows.push(row);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body) >>> 0);
  return Buffer.concat([length, body, crc]);
}
