import { Type, type Static } from '@sinclair/typebox'

export const FolderBody = Type.Object({
  path: Type.String({ minLength: 1, description: 'The folder to make, with or without its trailing "/"' })
}, { $id: 'StowageFolderBody', additionalProperties: false })
export type FolderBody = Static<typeof FolderBody>

export const FolderMade = Type.Object({
  path: Type.String({ description: 'The folder, ending in "/"' })
}, { $id: 'StowageFolderMade' })

export const FolderPathParams = Type.Object({
  '*': Type.String({ minLength: 1, description: 'The folder\'s path, with or without its trailing "/"' })
})

export const folderSchemas = [FolderBody, FolderMade]
