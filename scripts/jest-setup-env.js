// Services created inside a test process log only warnings unless TEST_LOG_LEVEL says otherwise.
process.env.LOG_LEVEL = process.env.TEST_LOG_LEVEL || 'warn';
