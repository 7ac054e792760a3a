// piscina thread entry of the multipart checks: one exported function over a transferable task, either a part as it
// arrives ({n, raw}) or a whole upload at completion (the raw create body and parts), moved in, never copied.
import { checkPartBody, checkUploadBodies, type PartCheck, type UploadCheck } from './upload-check.run';

export default function run(task: Uint8Array[] | { n: number; raw: Uint8Array }): UploadCheck | PartCheck {
  if (Array.isArray(task)) return checkUploadBodies(task[0], task.slice(1));
  return checkPartBody(task.n, task.raw);
}
