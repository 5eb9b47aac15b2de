// Real infrastructure for integration and e2e tests.
// Where a Docker engine runs, testcontainers starts mongo:7, rabbitmq:3 and redis:7 for the run;
// elsewhere (our development and CI machines) scripts/infra.sh provides FerretDB, RabbitMQ and Redis.
// Either way the tests read MONGO_URL, AMQP_URL and REDIS_URL from the environment.
const { execFileSync } = require('node:child_process');
const path = require('node:path');

function dockerAvailable() {
  if (process.env.SOCIAL_TEST_INFRA === 'local') return false;
  try {
    execFileSync('docker', ['info'], { stdio: 'ignore', timeout: 5000 });
    return true;
  } catch {
    return false;
  }
}

module.exports = async function globalSetup() {
  if (process.env.MONGO_URL && process.env.AMQP_URL && process.env.REDIS_URL) return useS3();
  if (dockerAvailable()) {
    const { GenericContainer, Wait } = require('testcontainers');
    const mongo = await new GenericContainer('mongo:7').withExposedPorts(27017).start();
    const rabbit = await new GenericContainer('rabbitmq:3')
      .withExposedPorts(5672)
      .withWaitStrategy(Wait.forLogMessage('Server startup complete'))
      .start();
    const redis = await new GenericContainer('redis:7').withExposedPorts(6379).start();
    process.env.MONGO_URL = `mongodb://${mongo.getHost()}:${mongo.getMappedPort(27017)}/`;
    process.env.AMQP_URL = `amqp://guest:guest@${rabbit.getHost()}:${rabbit.getMappedPort(5672)}`;
    process.env.REDIS_URL = `redis://${redis.getHost()}:${redis.getMappedPort(6379)}`;
    globalThis.__SOCIAL_CONTAINERS__ = [mongo, rabbit, redis];
    // MEDIA_STORE=s3 with Docker: MinIO for the run (this path is not run on our Docker-less machines).
    if (process.env.MEDIA_STORE === 's3' && !process.env.S3_ENDPOINT) {
      const secret = require('node:crypto').randomBytes(18).toString('hex');
      const minio = await new GenericContainer('minio/minio:RELEASE.2024-08-17T01-24-54Z')
        .withCommand(['server', '/data'])
        .withEnvironment({ MINIO_ROOT_USER: 'social-test', MINIO_ROOT_PASSWORD: secret })
        .withExposedPorts(9000)
        .withWaitStrategy(Wait.forHttp('/minio/health/live', 9000))
        .start();
      process.env.S3_ENDPOINT = `http://${minio.getHost()}:${minio.getMappedPort(9000)}`;
      process.env.S3_ACCESS_KEY_ID = 'social-test';
      process.env.S3_SECRET_ACCESS_KEY = secret;
      globalThis.__SOCIAL_CONTAINERS__.push(minio);
    }
    return;
  }
  execFileSync('bash', [path.join(__dirname, 'infra.sh')], { stdio: 'inherit' });
  if (!process.env.AMQP_URL) useRunVhost();
  useS3();
};

// MEDIA_STORE=s3 without S3_ENDPOINT: the versitygw infra.sh runs, with the credentials it made.
function useS3() {
  if (process.env.MEDIA_STORE !== 's3' || process.env.S3_ENDPOINT) return;
  const file = execFileSync('bash', [path.join(__dirname, 'infra.sh'), 's3-credentials'])
    .toString()
    .trim();
  for (const line of require('node:fs').readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
    const [k, v] = line.split('=', 2);
    process.env[k] ??= v;
  }
  process.env.S3_ENDPOINT = 'http://127.0.0.1:7070';
}

// The local broker is shared with `pnpm start` and with other test runs on this machine; queues
// have fixed names (media.process, publisher.publish-jobs, ...), so a run of its own vhost keeps a
// running system's workers from taking the tests' jobs. The teardown deletes it.
function useRunVhost() {
  const vhost = `jest-${process.pid}-${Date.now().toString(36)}`;
  const ctl = (...args) => execFileSync('rabbitmqctl', ['-q', ...args], { stdio: 'ignore', timeout: 60000 });
  ctl('add_vhost', vhost);
  ctl('set_permissions', '-p', vhost, 'guest', '.*', '.*', '.*');
  process.env.AMQP_URL = `amqp://guest:guest@127.0.0.1:5672/${vhost}`;
  globalThis.__SOCIAL_RUN_VHOST__ = vhost;
}
