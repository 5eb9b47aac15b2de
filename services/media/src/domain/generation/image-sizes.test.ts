import { ASPECT_RATIOS, imageSize, MAX_SIDE, MIN_SIDE, snapSide } from './image-sizes';

describe('image sizes', () => {
  it('gives every ratio default sizes that are multiples of 16 within limits and close to the ratio', () => {
    for (const [ratio, qualities] of Object.entries(ASPECT_RATIOS)) {
      const [rw, rh] = ratio.split(':').map(Number) as [number, number];
      for (const [w, h] of Object.values(qualities)) {
        expect([ratio, w % 16, h % 16]).toEqual([ratio, 0, 0]);
        expect(Math.min(w, h)).toBeGreaterThanOrEqual(MIN_SIDE);
        expect(Math.max(w, h)).toBeLessThanOrEqual(MAX_SIDE);
        expect(Math.abs(w / h - rw / rh) / (rw / rh)).toBeLessThan(0.01);
      }
    }
  });

  it.each([
    [1000, 1008],
    [1007, 1008],
    [1000.1, 1008],
    [1016, 1024], // halfway between 1008 and 1024: up
    [1023, 1024],
    [100, MIN_SIDE],
    [255, MIN_SIDE],
    [4000, MAX_SIDE],
    [2049, MAX_SIDE],
  ])('snaps %d to %d', (n, expected) => {
    expect(snapSide(n)).toBe(expected);
  });

  it('uses targets over the ratio default when given', () => {
    expect(imageSize('16:9', 'standard')).toEqual({ width: 1536, height: 864 });
    expect(imageSize('16:9', 'hd')).toEqual({ width: 2048, height: 1152 });
    expect(imageSize('1:1', 'standard', { width: 801, height: 599 })).toEqual({ width: 800, height: 592 });
  });
});
