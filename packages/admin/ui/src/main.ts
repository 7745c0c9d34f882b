// The console's entry point (ui/index.html loads it).
import { AdminConsole } from './admin-console.js';
import './styles.css';

const root = document.getElementById('app');
if (root !== null) void new AdminConsole(root).start();
