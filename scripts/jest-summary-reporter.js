// Prints one plain closing line ("tests: N passed, N failed, N skipped") that CI can read
// whatever else jest printed above it.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const { numPassedTests, numFailedTests, numPendingTests, numFailedTestSuites, numRuntimeErrorTestSuites } = results;
    const failed = numFailedTests + (numFailedTests === 0 ? numFailedTestSuites + numRuntimeErrorTestSuites : 0);
    process.stdout.write(`\ntests: ${numPassedTests} passed, ${failed} failed, ${numPendingTests} skipped\n`);
  }
}
module.exports = SummaryReporter;
