import { execFile } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const selfsigned = require('selfsigned') as {
  generate(attrs: unknown[], opts: unknown): { private: string; cert: string };
};

const run = promisify(execFile);

export const jpeg = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 90 } } })
    .jpeg({ quality: 90 })
    .toBuffer();
export const png = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 4, background: { r: 10, g: 200, b: 90, alpha: 0.5 } } })
    .png()
    .toBuffer();
export const gif = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 0, g: 0, b: 255 } } })
    .gif()
    .toBuffer();

/**
 * A real H.264 MP4 made by ffmpeg with a known size, duration and frame rate; its index (moov) first,
 * or after the frames (`moovAtEnd`), as a camera or a plain ffmpeg run writes it.
 */
export async function mp4(
  width: number,
  height: number,
  seconds: number,
  fps: number,
  opts: { moovAtEnd?: boolean } = {},
): Promise<Buffer> {
  const dir = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'media-fixture-'));
  const out = path.join(dir, 'v.mp4');
  try {
    await run('ffmpeg', [
      '-v',
      'error',
      '-f',
      'lavfi',
      '-i',
      `testsrc=size=${width}x${height}:rate=${fps}:duration=${seconds}`,
      '-pix_fmt',
      'yuv420p',
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      ...(opts.moovAtEnd ? [] : ['-movflags', '+faststart']),
      out,
    ]);
    return await fs.promises.readFile(out);
  } finally {
    await fs.promises.rm(dir, { recursive: true, force: true });
  }
}

/** Starts like a JPEG, then garbage: the type is detected, decoding fails. */
export const corruptJpeg = () =>
  Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.from('JFIF\0'), Buffer.alloc(4000, 0x5a)]);
/** An MP4 header with nothing playable behind it. */
export const corruptMp4 = () => Buffer.concat([Buffer.from('\0\0\0\x20ftypisom\0\0\x02\0isomiso2avc1mp41'), Buffer.alloc(20000, 0x11)]);

export interface TlsServer {
  port: number;
  ca: string;
  url(host: string, p: string): string;
  close(): Promise<void>;
}

/** An HTTPS server with a certificate of a throw-away CA for files.example.test and 127.0.0.1. */
export async function startTlsServer(
  handler: (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void,
): Promise<TlsServer> {
  const pems = selfsigned.generate([{ name: 'commonName', value: 'media test CA' }], {
    keySize: 2048,
    days: 1,
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: true },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'files.example.test' },
          { type: 2, value: '*.example.test' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  const server = https.createServer({ key: pems.private, cert: pems.cert }, handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    ca: pems.cert,
    url: (host, p) => `https://${host}:${port}${p}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Are all quantization tables of a JPEG 1s (what quality 100 writes)? */
export function jpegIsQuality100(buf: Buffer): boolean {
  let i = 2;
  let tables = 0;
  while (i < buf.length - 4) {
    if (buf[i] !== 0xff) return false;
    const marker = buf[i + 1]!;
    const len = buf.readUInt16BE(i + 2);
    if (marker === 0xdb) {
      let j = i + 4;
      while (j < i + 2 + len) {
        const precision = buf[j]! >> 4;
        const size = precision ? 128 : 64;
        const values = precision
          ? Array.from({ length: 64 }, (_, k) => buf.readUInt16BE(j + 1 + 2 * k))
          : [...buf.subarray(j + 1, j + 1 + 64)];
        if (values.some((v) => v !== 1)) return false;
        tables++;
        j += 1 + size;
      }
    }
    if (marker === 0xda) break;
    i += 2 + len;
  }
  return tables > 0;
}
