// `scanner snapshot|scan|sidecar|gateway|mcp`: the CI client's entry. Each command is imported when it runs, so
// `scanner snapshot` never evaluates the HTTP or report code and `scan --format sarif` never the table code.
import { USAGE } from './args';
import { EXIT, InputError, ServiceError } from './errors';
import { processIo, type Io } from './io';
import { VERSION } from './version';

export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'snapshot':
        return await (await import('./commands/snapshot')).snapshotCommand(rest, io);
      case 'scan':
        return await (await import('./commands/scan')).scanCommand(rest, io);
      case 'sidecar':
        return await (await import('./commands/sidecar')).sidecarCommand(rest, io);
      case 'gateway':
        return await (await import('./commands/gateway')).gatewayCommand(rest, io);
      case 'mcp':
        return await (await import('./commands/mcp')).mcpCommand(rest, io);
      case '--version':
      case 'version':
        io.out(`scanner ${VERSION}\n`);
        return EXIT.ok;
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.out(`${USAGE}\n`);
        return command === undefined ? EXIT.input : EXIT.ok;
      default:
        throw new InputError(`unknown command ${JSON.stringify(command)}\n${USAGE}`);
    }
  } catch (err) {
    if (err instanceof InputError || err instanceof ServiceError) {
      io.err(`scanner: ${err.message}\n`);
      return err.exitCode;
    }
    io.err(`scanner: unexpected error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return EXIT.service;
  }
}
