import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';
import { missingToken } from './api/client.ts';
import { NoTokenView } from './views/NoTokenView.tsx';
import './styles.css';

const root = document.getElementById('root');
if (root) createRoot(root).render(<StrictMode>{missingToken() ? <NoTokenView /> : <App />}</StrictMode>);
