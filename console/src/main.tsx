import { render } from 'preact'
import { createApi } from './api.js'
import { App } from './app.js'
import { createSessionStore } from './session.js'
import { createTokens } from './tokens.js'

const sessions = createSessionStore()
render(<App sessions={sessions} api={createApi(createTokens(sessions))} />, document.getElementById('app')!)
