import fs from 'node:fs';
import { dropDatabases, testEnv } from '@social/testkit';
import { loadOpenApi } from '@social/openapi';
import { chromium, type Browser } from 'playwright-core';
import { loadGatewayConfig } from '../src/config';
import { GatewayService } from '../src/gateway-service';

// Debian's chromium; .ci/run installs it. Without it this file says so and skips.
const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
const haveChromium = fs.existsSync(CHROMIUM);
if (!haveChromium) {
  console.warn(`SKIPPED docs page test: no Chromium at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`);
}
const describeWithChromium = haveChromium ? describe : describe.skip;

// Parsing Swagger UI's bundle takes Chromium half a minute on a busy two-core machine.
jest.setTimeout(300_000);

describeWithChromium('the documentation page in headless Chromium', () => {
  let env: Record<string, string>;
  let gateway: GatewayService;
  let browser: Browser;
  let origin: string;

  beforeAll(async () => {
    env = testEnv({ GATEWAY_PORT: '0' });
    gateway = await GatewayService.create(loadGatewayConfig(env));
    origin = `http://127.0.0.1:${gateway.port}`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await gateway?.destroy();
    await dropDatabases(env['MONGO_URL']!, env['MONGO_DB_PREFIX']!);
  });

  it('lists every operation of the OpenAPI document, shows examples, and asks no other host for anything', async () => {
    const page = await browser.newPage();
    const requested: string[] = [];
    page.on('request', (r) => requested.push(r.url()));
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));

    const res = await page.goto(`${origin}/v2/docs`, { timeout: 180_000 });
    expect(res?.status()).toBe(200);
    await page.waitForSelector('.opblock', { timeout: 180_000 });

    const doc = loadOpenApi();
    const expected: string[] = [];
    for (const [path, item] of Object.entries<Record<string, unknown>>(doc['paths'])) {
      for (const method of ['get', 'post', 'put', 'patch', 'delete']) if (item[method]) expected.push(`${method.toUpperCase()} ${path}`);
    }
    // The webhook events (OpenAPI `webhooks`) are listed too, by event name.
    for (const [event, item] of Object.entries<Record<string, unknown>>(doc['webhooks'] ?? {})) {
      for (const method of ['post']) if (item[method]) expected.push(`${method.toUpperCase()} ${event}`);
    }
    const listed = await page.$$eval('.opblock', (blocks) =>
      blocks.map(
        (b) =>
          `${b.querySelector('.opblock-summary-method')?.textContent?.trim()} ${b.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`,
      ),
    );
    expect(listed.sort()).toEqual(expected.sort());

    // Open createLabel: its request body example and its Idempotency-Key parameter are shown.
    await page.click('#operations-Labels-createLabel .opblock-summary-control');
    const op = page.locator('#operations-Labels-createLabel');
    await op.locator('.body-param__example, .example').first().waitFor({ timeout: 30_000 });
    const text = await op.innerText();
    expect(text).toContain('Idempotency-Key');
    expect(text).toContain('5f0c6e0e-7d4b-4d8e-9a57-3f1f3c2b9a10');
    expect(text).toMatch(/"name":\s*"string"/);
    expect(text).toContain('IDEMPOTENCY_KEY_REUSED');

    // Other kinds of operation show their example responses too (opening all of them takes minutes
    // on a busy machine, so a GET with query parameters and the stage change stand for the rest).
    for (const id of ['operations-Posts-changePostStage', 'operations-Insights-getProfileDailyInsights']) {
      await page.click(`#${id} .opblock-summary-control`);
      await page.locator(`#${id} .responses-table .example`).first().waitFor({ timeout: 60_000 });
      expect(await page.locator(`#${id} .responses-table .example`).first().innerText()).toMatch(/^\s*\{/);
    }

    expect(problems).toEqual([]);
    const elsewhere = requested.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('data:'));
    expect(elsewhere).toEqual([]);
    expect(requested).toContain(`${origin}/v2/openapi.json`);
  });
});
