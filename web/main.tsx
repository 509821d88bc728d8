/** Entry of the console's bundle (scripts/build-console.mjs): styles, then the app into #app. */
import { render } from 'preact';
import { App } from './app.js';
import './styles.css';

const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  render(<App />, root);
}
