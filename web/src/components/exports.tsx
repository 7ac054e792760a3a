// A scan's exports as downloads: the CycloneDX SBOM, and the VEX of the findings' triage analyses as CycloneDX or
// OpenVEX, as the API serves them. Fetched with the session (the API takes the cookie only with the app's header, so
// a plain link would not do), then saved through an object URL. An OpenVEX document needs at least one analysis: the
// API's refusal of a scan with none is said in words. A project's page offers the VEX documents of its latest tracked
// scan only (`vex`), naming that scan (`label`).
import { useState } from 'preact/hooks';
import { api, saveBlob } from '../api';
import { errorText } from './admin/common';

const CYCLONEDX = 'application/vnd.cyclonedx+json';
const EXPORTS = [
  { path: 'sbom', label: 'SBOM (CycloneDX)', file: 'sbom.cdx.json', type: CYCLONEDX },
  { path: 'vex', label: 'VEX (CycloneDX)', file: 'vex.cdx.json', type: CYCLONEDX },
  { path: 'vex?format=openvex', label: 'VEX (OpenVEX)', file: 'openvex.json', type: 'application/json' },
] as const;

const save = (text: string, name: string, type: string): void => saveBlob(new Blob([text], { type }), name);

/**
 * The download buttons of a scan's exports. `vex`: the two VEX documents only (no SBOM, no word of SARIF); `label`:
 * the group's accessible name, which says which scan the buttons export.
 */
export function ScanExports({
  scanId,
  vex = false,
  label = 'Download this scan',
}: {
  scanId: string;
  vex?: boolean;
  label?: string;
}) {
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  return (
    <div class="exports" role="group" aria-label={label}>
      <span class="muted">Download:</span>
      {EXPORTS.filter((x) => !vex || x.path !== 'sbom').map((x) => (
        <button
          key={x.path}
          type="button"
          disabled={busy !== null}
          onClick={async () => {
            setBusy(x.path);
            setError(null);
            try {
              save(await api.text(`/scans/${encodeURIComponent(scanId)}/${x.path}`), `${scanId}.${x.file}`, x.type);
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
      {vex ? null : (
        <span class="muted">
          SARIF comes from the CI client: <code>scanner scan --format sarif</code>.
        </span>
      )}
      {error ? (
        <p role="alert" class="error">
          {error}
        </p>
      ) : null}
    </div>
  );
}
