// Response schemas of multipart uploads (platform.md §2).
export const uploadSchemas = {
  UploadResponse: { type: 'object' },
  UploadPartResponse: { type: 'object' },
};
