import { openDatabase } from './src/platform/database.js';
const url = `file:/tmp/pc-two-${process.pid}.db`;
const a = await openDatabase({ databaseUrl: url });
await a.prisma.user.count();
console.log('a open');
try { const b = await openDatabase({ databaseUrl: url }); console.log('b open'); await b.close(); } catch (e) { console.log('b failed', String(e).slice(0, 100)); }
await a.close();
