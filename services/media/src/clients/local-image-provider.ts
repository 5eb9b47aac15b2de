import { createHash } from 'node:crypto';
import sharp from 'sharp';
import type { GenerateRequest, ImageProvider } from '../domain/generation/ports';

/**
 * Renders a real image on this machine, with no model: a gradient and shapes whose colors and
 * positions come from a hash of the prompt, quality and size, so a prompt always gives the same image.
 */
export class LocalImageProvider implements ImageProvider {
  readonly name = 'local';

  async generate(req: GenerateRequest): Promise<Buffer> {
    const { width: w, height: h } = req;
    const seed = createHash('sha256').update(`${req.prompt}\n${req.quality}\n${w}x${h}`).digest();
    let i = 0;
    const byte = () => seed[i++ % seed.length]!;
    const color = () => `rgb(${byte()},${byte()},${byte()})`;
    const shapes: string[] = [];
    const count = 6 + (byte() % 6);
    for (let s = 0; s < count; s++) {
      const x = (byte() / 255) * w;
      const y = (byte() / 255) * h;
      const size = ((byte() / 255) * 0.35 + 0.05) * Math.min(w, h);
      const opacity = (0.35 + (byte() / 255) * 0.5).toFixed(2);
      shapes.push(
        byte() % 2 === 0
          ? `<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="${size.toFixed(1)}" fill="${color()}" fill-opacity="${opacity}"/>`
          : `<rect x="${(x - size / 2).toFixed(1)}" y="${(y - size / 2).toFixed(1)}" width="${size.toFixed(1)}" height="${(size * 0.7).toFixed(1)}" rx="${(size / 8).toFixed(1)}" transform="rotate(${byte() % 90} ${x.toFixed(1)} ${y.toFixed(1)})" fill="${color()}" fill-opacity="${opacity}"/>`,
      );
    }
    const svg =
      `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">` +
      `<defs><linearGradient id="g" x1="0" y1="0" x2="${(byte() / 255).toFixed(2)}" y2="1">` +
      `<stop offset="0" stop-color="${color()}"/><stop offset="1" stop-color="${color()}"/></linearGradient></defs>` +
      `<rect width="100%" height="100%" fill="url(#g)"/>${shapes.join('')}</svg>`;
    return sharp(Buffer.from(svg)).png({ compressionLevel: 1 }).toBuffer();
  }
}
