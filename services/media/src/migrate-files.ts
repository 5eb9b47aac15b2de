import { closeMongo, connectMongo } from '@social/mongo';
import { loadMediaConfig, mediaDbName } from './config';
import { migrateGridFsFiles } from './migration/migrate-files';
import { primaryStore } from './storage/store-from-config';

/**
 * `pnpm --filter @social/media migrate-files [--dry-run] [--keep-gridfs]`: moves the files stored in
 * GridFS (before MEDIA_STORE) into the configured store, with the service's own configuration.
 * Prints a JSON report; exits 1 on an error (what was moved stays moved; run it again).
 */
async function main(): Promise<void> {
  const args = new Set(process.argv.slice(2));
  for (const a of args)
    if (!['--dry-run', '--keep-gridfs'].includes(a)) throw new Error(`unknown option ${a} (use --dry-run, --keep-gridfs)`);
  const cfg = loadMediaConfig();
  const mongo = await connectMongo({ url: cfg.mongoUrl, dbName: mediaDbName(cfg) });
  const target = primaryStore(cfg);
  try {
    const report = await migrateGridFsFiles(mongo.db!, target, { dryRun: args.has('--dry-run'), keepGridFs: args.has('--keep-gridfs') });
    process.stdout.write(`${JSON.stringify({ store: cfg.mediaStore, ...report, orphans: report.orphans.length }, null, 2)}\n`);
  } finally {
    (target as { destroy?: () => void }).destroy?.();
    await closeMongo(mongo);
  }
}

main().catch((err: Error) => {
  process.stderr.write(`migrate-files: ${err.message}\n`);
  process.exit(1);
});
