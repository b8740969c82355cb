import { type FormEvent, useState } from 'react';
import { Api, ApiError } from '../api/client.ts';

/** Asks for the API key the server was started with (--api-key) and checks it against /v0/config. */
export function SignIn({ onSignedIn, rejected }: { onSignedIn: (key: string) => void; rejected: boolean }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState(rejected ? 'This server needs an API key.' : '');
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    try {
      await new Api(key, () => undefined).json('/v0/config');
      onSignedIn(key);
    } catch (err) {
      setError(err instanceof ApiError && err.status === 401 ? 'Wrong API key.' : String(err));
    }
  };
  return (
    <main className="sign-in">
      <form onSubmit={(e) => void submit(e)}>
        <h1>svc</h1>
        <p>Sign in with the API key of this server.</p>
        <label htmlFor="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autoComplete="current-password"
          value={key}
          onChange={(e) => setKey(e.target.value)}
          autoFocus
        />
        <button type="submit" disabled={!key}>
          Sign in
        </button>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
      </form>
    </main>
  );
}
