// piscina thread entry of the upload check: one exported function over a transferable task (the raw create body and
// parts, moved in); the verdict is a few hundred bytes.
import { checkUploadBodies, type UploadCheck } from './upload-check.run';

export default function run(task: Uint8Array[]): UploadCheck {
  return checkUploadBodies(task[0], task.slice(1));
}
