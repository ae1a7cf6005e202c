import * as tus from 'tus-js-client'

export interface TusResult {
  url: string
  response: tus.HttpResponse
  /** The Upload-Offset of the first piece sent: where a resumed upload went on from. */
  startedAt: number | undefined
}

/** tus-js-client's upload of `source` (from `endpoint`, or going on at `uploadUrl`), in 8 MiB pieces with no retries unless told. */
export function tusUpload (source: tus.Upload['file'], options: tus.UploadOptions): Promise<TusResult> {
  return new Promise((resolve, reject) => {
    let startedAt: number | undefined
    const upload: tus.Upload = new tus.Upload(source, {
      chunkSize: 8 * 1024 * 1024,
      retryDelays: [],
      onBeforeRequest: (request) => {
        const offset = request.getHeader('Upload-Offset')
        if (request.getMethod() === 'PATCH' && startedAt === undefined && offset !== undefined) startedAt = Number(offset)
      },
      onSuccess: ({ lastResponse }) => resolve({ url: upload.url!, response: lastResponse, startedAt }),
      onError: reject,
      ...options
    })
    upload.start()
  })
}
