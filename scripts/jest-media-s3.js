// Jest project "integration-s3": the media component tests once more, on the S3-compatible store
// (the versitygw scripts/infra.sh runs, or S3_ENDPOINT), so both FileStore backends are proven by
// the same tests in every `pnpm test`; the "integration" project runs them on the filesystem.
process.env.MEDIA_STORE = 's3';
