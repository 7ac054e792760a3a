// Response schemas of cycloneDX exports of a scan (platform.md §8): GET /v1/scans/{scanId}/sbom and /vex (src/http/scans/exports.ts).
export const exportSchemas = {};
