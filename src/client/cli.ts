// The bundle's entry (dist/cli/scanner.mjs): run the command line, exit with its code once output is flushed.
import { main } from './main';

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
