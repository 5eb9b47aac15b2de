import { randomColor } from './label.rules';

describe('label colors', () => {
  it('are #RRGGBB and vary', () => {
    const colors = Array.from({ length: 50 }, randomColor);
    for (const c of colors) expect(c).toMatch(/^#[0-9A-F]{6}$/);
    expect(new Set(colors).size).toBeGreaterThan(40);
  });
});
