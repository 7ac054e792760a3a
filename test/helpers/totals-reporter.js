// Jest reporter: one plain line `N passed, M failed` as the very last line of the run, for CI scripts to read.
// Jest adds its own summary reporter after all custom ones and runs globalTeardown after every reporter, so
// printing in onRunComplete would not be last: the line is written when the process exits instead (stdout
// writes are synchronous on Linux pipes, files and terminals, so it is not lost).
class TotalsReporter {
  constructor() {
    this.line = undefined;
  }

  onRunComplete(_contexts, results) {
    if (this.line === undefined) process.once('exit', () => process.stdout.write(`${this.line}\n`));
    // A suite that cannot even load (syntax error, failing beforeAll import) has no failed *tests*: count it as a
    // failure so the line never reads "0 failed" for a broken run.
    const brokenSuites = results.testResults.filter((r) => r.testExecError && r.numFailingTests === 0).length;
    this.line = `${results.numPassedTests} passed, ${results.numFailedTests + brokenSuites} failed`;
  }
}

module.exports = TotalsReporter;
