// Jest reporter: one plain line `N passed, M failed` as the very last line of the run, for CI scripts to read.
// Jest adds its own summary reporter after all custom ones and runs globalTeardown after every reporter, so
// printing in onRunComplete would not be last: the line is written when the process exits instead (stdout
// writes are synchronous on Linux pipes, files and terminals, so it is not lost). Just above it, one line per failed
// test or broken suite, so that the end of a CI log alone says what failed.
const path = require('node:path');

class TotalsReporter {
  constructor() {
    this.lines = undefined;
  }

  onRunComplete(_contexts, results) {
    if (this.lines === undefined) {
      process.once('exit', () => process.stdout.write(`${this.lines.join('\n')}\n`));
    }
    const failures = [];
    for (const suite of results.testResults) {
      const file = path.relative(process.cwd(), suite.testFilePath);
      // A suite that cannot even load (syntax error, failing beforeAll import) has no failed *tests*: count it as a
      // failure so the line never reads "0 failed" for a broken run.
      if (suite.testExecError && suite.numFailingTests === 0) {
        const why = String(suite.testExecError.message || '')
          .split('\n')[0]
          .slice(0, 200);
        failures.push(`failed suite: ${file}: ${why}`);
      }
      for (const test of suite.testResults) {
        if (test.status === 'failed') failures.push(`failed test: ${file} › ${test.fullName}`);
      }
    }
    const broken = failures.filter((l) => l.startsWith('failed suite')).length;
    this.lines = [
      ...failures.slice(0, 50),
      `${results.numPassedTests} passed, ${results.numFailedTests + broken} failed`,
    ];
  }
}

module.exports = TotalsReporter;
