// Text as people write it, through the Node API with previews on: compatibility
// forms, Turkish dotted and dotless i, Thai runs, NFD accents, previews that keep words whole,
// file names that are not UTF-8.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

import { createMemoryIndex, openIndex } from '../dist/index.js';
import { workspace } from './helpers.mjs';

async function indexOf(docs) {
  const index = createMemoryIndex();
  await index.add(docs.map((content, i) => ({ id: `d${i}`, content })));
  return index;
}

const ids = async (index, query) => (await index.search({ query, previewChars: 80 })).results.map((r) => r.id);

describe('text as people write it', () => {
  it('compatibility forms fold to their plain letters, in the index and in queries', async () => {
    const index = await indexOf(['the ﬁle system', 'ＡＢＣ fullwidth', 'plain file abc']);
    assert.deepEqual((await ids(index, 'file')).sort(), ['d0', 'd2']);
    assert.deepEqual((await ids(index, 'abc')).sort(), ['d1', 'd2']);
    assert.deepEqual((await ids(index, 'ﬁle')).sort(), ['d0', 'd2']);
  });

  it('Turkish İ and ı match i', async () => {
    const index = await indexOf(['İstanbul boğazı', 'ılık su']);
    assert.deepEqual(await ids(index, 'istanbul'), ['d0']);
    assert.deepEqual(await ids(index, 'ISTANBUL'), ['d0']);
    assert.deepEqual(await ids(index, 'ilik'), ['d1']);
  });

  it('a word inside a long Thai run is found', async () => {
    const run = 'ภาษาไทยเป็นภาษาที่ไม่มีการเว้นวรรคระหว่างคำและประโยค';
    assert.ok(Buffer.byteLength(run) > 64);
    const index = await indexOf([run, 'ภาษาอังกฤษ']);
    assert.deepEqual(await ids(index, 'ไม่มีการเว้นวรรค'), ['d0']);
    assert.deepEqual(await ids(index, 'ภาษาไทย'), ['d0']);
  });

  it('a word written joined or with a hyphen is found either way, its own form first', async () => {
    const index = await indexOf([
      'send an e-mail in real-time',
      'email clients for realtime chat',
      'a create_tool helper',
    ]);
    assert.deepEqual(await ids(index, 'e-mail'), ['d0', 'd1']);
    assert.deepEqual(await ids(index, 'email'), ['d1', 'd0']);
    assert.deepEqual(await ids(index, 'real-time'), ['d0', 'd1']);
    assert.deepEqual(await ids(index, 'realtime'), ['d1', 'd0']);
    assert.deepEqual(await ids(index, 'createtool'), ['d2']);
    assert.deepEqual(await ids(index, 'createTool'), ['d2']);
    // The preview shows and marks the other spelling where the query's is not written.
    const long = await indexOf([`${'an introduction that goes on for a while. '.repeat(4)}then real-time audio`]);
    const [hit] = (await long.search({ query: 'realtime', previewChars: 60 })).results;
    assert.ok(hit.preview.includes('real-time'), hit.preview);
    assert.deepEqual(
      hit.highlights.map(([a, b]) => hit.preview.slice(a, b)),
      ['real-time'],
    );
  });

  it('typed without the marks its readers leave out: Greek accents, Russian ё, Arabic vowels, Hebrew points', async () => {
    const index = await indexOf([
      'Καλημέρα κόσμε, η βιβλιοθήκη', // Greek with tonos
      'Ёлка и ещё', // Russian ё
      'قرأت كِتَابًا عن أحمد', // Arabic with harakat and hamza
      'סֵפֶר טוֹב', // Hebrew with niqqud
      'йод и ї', // letters that are not marks
    ]);
    for (const [query, id] of [
      ['καλημερα', 'd0'],
      ['βιβλιοθηκη', 'd0'],
      ['Καλημέρα', 'd0'],
      ['елка', 'd1'],
      ['еще', 'd1'],
      ['كتابا', 'd2'],
      ['احمد', 'd2'],
      ['ספר', 'd3'],
      ['סֵפֶר', 'd3'],
    ]) {
      assert.deepEqual(await ids(index, query), [id], query);
    }
    assert.deepEqual(await ids(index, 'иод'), [], 'й is a letter of its own');
    const res = await index.search({ query: 'ספר', previewChars: 80 });
    const [[a, b]] = res.results[0].highlights;
    assert.equal(res.results[0].preview.slice(a, b), 'סֵפֶר', 'the highlight keeps the points');
  });

  it('a one-character word (an ideograph, a Hangul syllable) is found inside runs of text', async () => {
    const index = await indexOf([
      '黒猫の写真を集める', // inside a run
      '猫 cat pictures', // alone
      '这是一个猫', // at the end of a run
      '猫犬の本', // at the start
      '犬の写真', // not there
      '우리 집은 크다', // Hangul: 집 inside 집은
    ]);
    assert.deepEqual((await ids(index, '猫')).sort(), ['d0', 'd1', 'd2', 'd3']);
    assert.deepEqual(await ids(index, '集'), ['d0']);
    assert.deepEqual(await ids(index, '집'), ['d5']);
    // Two characters still match as a word, not character by character.
    assert.deepEqual((await ids(index, '写真')).sort(), ['d0', 'd4']);
    const res = await index.search({ query: '猫', previewChars: 80 });
    for (const r of res.results) {
      assert.ok(r.highlights.length > 0, `${r.id} has highlights`);
      assert.ok(
        r.highlights.some(([a, b]) => r.preview.slice(a, b).includes('猫')),
        `${r.id}: ${JSON.stringify(r.highlights)} in ${r.preview}`,
      );
    }
  });

  it('previews start and end on words and keep the original characters', async () => {
    const filler = 'lorem ipsum dolor sit amet '.repeat(3);
    const index = await indexOf([`${filler}STRAẞE data__Schlüssel ${filler}`, `${filler}Cafe\u0301 au lait ${filler}`]);
    for (const [query, id, whole] of [
      ['strasse', 'd0', 'STRAẞE'],
      ['schlussel', 'd0', 'Schlüssel'],
      ['cafe', 'd1', 'Cafe\u0301'],
    ]) {
      for (const previewChars of [20, 30, 45, 60, 200]) {
        const hit = (await index.search({ query, previewChars })).results.find((r) => r.id === id);
        assert.ok(hit, query);
        const words = hit.preview.split(' ');
        // Every word shown is a whole word of the text.
        for (const w of words)
          assert.ok(
            index && `${filler}STRAẞE data__Schlüssel Cafe\u0301 au lait`.split(/\s+/).includes(w),
            `${query}@${previewChars}: "${w}" in "${hit.preview}"`,
          );
        if (previewChars >= 60) assert.ok(hit.preview.includes(whole), `${query}@${previewChars}: ${hit.preview}`);
      }
    }
  });

  it('a file whose name is not valid UTF-8 is reported as such', {
    skip: process.platform !== 'linux' && 'byte file names are a Linux test',
  }, async () => {
    const ws = workspace();
    ws.write('project', { 'knowledge/ok.md': 'fine\n' });
    const dir = Buffer.from(path.join(ws.project, '.ai', 'knowledge'));
    fs.writeFileSync(Buffer.concat([dir, Buffer.from('/caf\xe9.md', 'latin1')]), 'latin-1 name\n');
    const index = await openIndex({
      projectPath: ws.project,
      userSpace: ws.user,
      cacheDir: ws.cache,
      includeDefaultBundle: false,
      watch: false,
    });
    const skip = index.lastReport.skipped.find((s) => s.path.includes('caf'));
    assert.equal(skip?.reason, 'not-utf8');
    assert.match(skip.detail, /file name is not valid UTF-8/);
    await index.close();
    ws.cleanup();
  });
});
