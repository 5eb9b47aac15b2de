// Services created inside a test process log only errors unless TEST_LOG_LEVEL or LOG_LEVEL says
// otherwise, so a failing test is the first thing in the output (processes started by the e2e test
// kit keep their logs in memory and print them only when they fail to start).
process.env.LOG_LEVEL = process.env.TEST_LOG_LEVEL || process.env.LOG_LEVEL || 'error';
