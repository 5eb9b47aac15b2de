const mongoose = require('mongoose');
(async () => {
  const conn = await mongoose.createConnection('mongodb://127.0.0.1:27017/', { dbName: 'tmp_insights_exp', retryWrites: false }).asPromise();
  const c = conn.db.collection('b');
  await c.deleteMany({});
  await c.updateOne({ _id: 'p:1:2026-01' }, { $set: { 'days.05': { 'gn-a': 1, 'gn-b': 2 }, target: 'p:1' } }, { upsert: true });
  await c.updateOne({ _id: 'p:1:2026-01' }, { $set: { 'days.06': { 'gn-a': 3 } } }, { upsert: true });
  await c.updateOne({ _id: 'p:1:2026-01' }, { $set: { 'days.05': { 'gn-a': 9 } } }, { upsert: true });
  console.log(JSON.stringify(await c.findOne({ _id: 'p:1:2026-01' })));
  // bulk insert perf
  const docs = [];
  for (let p = 0; p < 300; p++) for (let m = 1; m <= 12; m++) {
    const days = {};
    for (let d = 1; d <= 30; d++) { const v = {}; for (let k = 0; k < 20; k++) v[`gn-daily-page-metric-${k}`] = d * k + p; days[String(d).padStart(2, '0')] = v; }
    docs.push({ _id: `profile:p${p}:2025-${String(m).padStart(2, '0')}`, target: `profile:p${p}`, days });
  }
  let t = Date.now();
  for (let i = 0; i < docs.length; i += 200) await c.insertMany(docs.slice(i, i + 200), { ordered: false });
  console.log('insert', docs.length, Date.now() - t, 'ms');
  t = Date.now();
  for (let i = 0; i < 20; i++) await c.findOne({ _id: `profile:p${i}:2025-03` });
  console.log('findOne x20', Date.now() - t);
  t = Date.now();
  for (let i = 0; i < 20; i++) await c.find({ _id: { $in: [`profile:p${i}:2025-03`, `profile:p${i}:2025-04`] } }).toArray();
  console.log('$in2 x20', Date.now() - t);
  t = Date.now();
  for (let i = 0; i < 5; i++) await c.find({ _id: { $in: Array.from({length: 12}, (_, m) => `profile:p${i}:2025-${String(m+1).padStart(2,'0')}`) } }).toArray();
  console.log('$in12 x5', Date.now() - t);
  t = Date.now();
  for (let i = 0; i < 5; i++) await Promise.all(Array.from({length: 12}, (_, m) => c.findOne({ _id: `profile:p${i}:2025-${String(m+1).padStart(2,'0')}` })));
  console.log('par12 x5', Date.now() - t);
  const ex = await c.find({ _id: { $in: ['profile:p1:2025-03'] } }).explain();
  console.log(JSON.stringify(ex).slice(0, 600));
  await conn.dropDatabase(); await conn.close();
})();
