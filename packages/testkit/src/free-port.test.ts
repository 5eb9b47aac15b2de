import fs from 'node:fs';
import net from 'node:net';
import { freePort } from './test-env';

const RANGE = '/proc/sys/net/ipv4/ip_local_port_range';
// Linux tells its ephemeral range; elsewhere freePort falls back to the kernel's choice.
(fs.existsSync(RANGE) ? describe : describe.skip)('freePort', () => {
  it('hands out distinct ports below the ephemeral range, each one free to listen on', async () => {
    const low = Number(fs.readFileSync(RANGE, 'utf8').trim().split(/\s+/)[0]);
    const ports: number[] = [];
    for (let i = 0; i < 200; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(200);
    for (const p of ports) expect(p).toBeLessThan(low);
    const srv = net.createServer();
    await new Promise<void>((resolve) => srv.listen(ports[0], '127.0.0.1', resolve));
    await new Promise((r) => srv.close(r));
  });
});
