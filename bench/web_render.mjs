// web_render.mjs - how long the agent's page takes to draw, in real time:
// starts headless Chromium with a fresh profile, opens URL through the
// DevTools protocol, and waits until the page has written data-first-ms on
// its tiles (or heat-map) and on its history section (performance.now()
// when each was first drawn). Prints "TILES_MS CHARTS_MS".
// Usage: node --experimental-websocket bench/web_render.mjs URL PROFILE_DIR
import { spawn } from "node:child_process";

const [url, profile] = process.argv.slice(2);
const port = 9300 + Math.floor(Math.random() * 500);
const chrome = spawn("chromium", ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
	"--disable-background-networking", "--disable-component-update", "--disable-sync",
	"--user-data-dir=" + profile, "--remote-debugging-port=" + port, "about:blank"], { stdio: "ignore" });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
	let targets = null;
	for (let i = 0; i < 100 && !targets; i++) {
		try {
			targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
		} catch (e) {
			await sleep(100);
		}
	}
	const page = targets.find((t) => t.type === "page");
	const ws = new WebSocket(page.webSocketDebuggerUrl);
	await new Promise((r) => ws.addEventListener("open", r));
	let id = 0;
	const waiting = new Map();
	ws.addEventListener("message", (m) => {
		const msg = JSON.parse(m.data);
		if (msg.id && waiting.has(msg.id)) {
			waiting.get(msg.id)(msg.result);
			waiting.delete(msg.id);
		}
	});
	const send = (method, params) => new Promise((r) => {
		waiting.set(++id, r);
		ws.send(JSON.stringify({ id, method, params }));
	});
	await send("Page.enable", {});
	await send("Page.navigate", { url });
	const probe = "JSON.stringify([(document.querySelector('#tiles[data-first-ms]') || document.querySelector('#heatmap[data-first-ms]') || {dataset: {}}).dataset.firstMs, (document.querySelector('#history') || {dataset: {}}).dataset.firstMs])";
	for (let i = 0; i < 300; i++) {
		const r = await send("Runtime.evaluate", { expression: probe, returnByValue: true });
		const [tiles, charts] = JSON.parse(r.result.value);
		if (tiles && charts) {
			console.log(tiles + " " + charts);
			return;
		}
		await sleep(50);
	}
	console.log("n/a n/a");
}

main().catch((e) => console.log("n/a n/a " + e.message)).finally(() => chrome.kill());
