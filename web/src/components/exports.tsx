// A scan's exports as downloads: the CycloneDX SBOM and VEX the API serves. Fetched with the session (the API takes
// the cookie only with the app's header, so a plain link would not do), then saved through an object URL.
import { useState } from 'preact/hooks';
import { api } from '../api';
import { errorText } from './admin/common';

const EXPORTS = [
  { path: 'sbom', label: 'SBOM (CycloneDX)', file: 'sbom.cdx.json' },
  { path: 'vex', label: 'VEX (CycloneDX)', file: 'vex.cdx.json' },
] as const;

function save(text: string, name: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/vnd.cyclonedx+json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function ScanExports({ scanId }: { scanId: string }) {
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  return (
    <div class="exports" role="group" aria-label="Download this scan">
      <span class="muted">Download:</span>
      {EXPORTS.map((x) => (
        <button
          key={x.path}
          type="button"
          disabled={busy !== null}
          onClick={async () => {
            setBusy(x.path);
            setError(null);
            try {
              save(await api.text(`/scans/${encodeURIComponent(scanId)}/${x.path}`), `${scanId}.${x.file}`);
            } catch (e) {
              setError(`Could not download the ${x.label}: ${errorText(e)}`);
            } finally {
              setBusy(null);
            }
          }}
        >
          {x.label}
        </button>
      ))}
      <span class="muted">
        SARIF comes from the CI client: <code>scanner scan --format sarif</code>.
      </span>
      {error ? (
        <p role="alert" class="error">
          {error}
        </p>
      ) : null}
    </div>
  );
}
