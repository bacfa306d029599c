/*
 * app.js - the agent's overview page: one tile per GPU (data-gpu="INDEX",
 * data-uuid="UUID") with its utilisation, memory, temperature, power,
 * clock and XIDs from the agent's own query API, a sparkline of the last
 * ten minutes (uPlot), the alerts of /api/v1/alerts, and history charts
 * (query_range over a chosen range, 5 m to 30 d, in the URL as #range=S;
 * drag to zoom). Every request goes to the agent that served the page.
 */
"use strict";
(function () {
	const FIELDS = {
		DCGM_FI_DEV_GPU_UTIL: "util",
		DCGM_FI_DEV_FB_USED: "fbUsed",
		DCGM_FI_DEV_FB_FREE: "fbFree",
		DCGM_FI_DEV_GPU_TEMP: "temp",
		DCGM_FI_DEV_POWER_USAGE: "power",
		DCGM_FI_DEV_POWER_LIMIT: "powerLimit",
		DCGM_FI_DEV_SM_CLOCK: "smClock",
		DCGM_FI_DEV_XID_ERRORS: "xid",
	};
	const SELECTOR = '{__name__=~"' + Object.keys(FIELDS).join("|") + '"}';
	const REFRESH_MS = 2000;
	const SPARK_MS = 10000;
	const SPARK_RANGE_S = 600;
	const tiles = new Map(); /* gpu index -> {el, plot, fields} */

	async function api(path, params) {
		const url = path + (params ? "?" + new URLSearchParams(params) : "");
		let r;
		try {
			r = await fetch(url, { headers: { Accept: "application/json" } });
		} catch (e) {
			throw new Error("the agent is unreachable (" + url + ")");
		}
		let body = null;
		try {
			body = await r.json();
		} catch (e) {
			throw new Error(path + ": HTTP " + r.status + " without a JSON answer");
		}
		if (!r.ok || body.status !== "success")
			throw new Error(path + ": " + (body.error || "HTTP " + r.status));
		return body.data;
	}

	function showError(msg) {
		const el = document.getElementById("error");
		el.textContent = msg || "";
		el.hidden = !msg;
	}

	function el(tag, cls, text) {
		const e = document.createElement(tag);
		if (cls)
			e.className = cls;
		if (text !== undefined)
			e.textContent = text;
		return e;
	}

	function fmt(v, digits, unit) {
		if (v === undefined || !isFinite(v))
			return "–";
		return v.toFixed(digits) + (unit ? " " + unit : "");
	}

	function tileFor(gpu, labels) {
		let t = tiles.get(gpu);
		if (t)
			return t;
		const root = el("article", "tile");
		root.dataset.gpu = gpu;
		root.dataset.uuid = labels.UUID || "";
		const h = el("h3");
		h.append(el("span", "", "GPU " + gpu), el("small", "", labels.modelName || ""));
		const dl = el("dl");
		const rows = {};
		for (const [key, name] of [["util", "utilisation"], ["mem", "memory"], ["temp", "temperature"],
			["power", "power"], ["smClock", "SM clock"], ["xid", "last XID"]]) {
			dl.append(el("dt", "", name));
			rows[key] = el("dd");
			rows[key].dataset.field = key;
			dl.append(rows[key]);
		}
		const bar = el("div", "bar");
		const fill = el("span");
		bar.append(fill);
		const spark = el("div", "spark");
		root.append(h, dl, bar, spark);
		t = { el: root, rows, fill, spark, plot: null };
		tiles.set(gpu, t);
		const main = document.getElementById("tiles");
		const after = [...main.children].find((c) => Number(c.dataset.gpu) > Number(gpu));
		main.insertBefore(root, after || null);
		return t;
	}

	async function refresh() {
		const data = await api("/api/v1/query", { query: SELECTOR });
		const byGpu = new Map();
		for (const s of data.result) {
			const gpu = s.metric.gpu;
			if (gpu === undefined)
				continue;
			const f = byGpu.get(gpu) || { labels: s.metric };
			const key = FIELDS[s.metric.__name__];
			if (key && f[key] === undefined)
				f[key] = Number(s.value[1]);
			byGpu.set(gpu, f);
		}
		for (const [gpu, f] of byGpu) {
			const t = tileFor(gpu, f.labels);
			const total = (f.fbUsed || 0) + (f.fbFree || 0);
			t.rows.util.textContent = fmt(f.util, 0, "%");
			t.rows.mem.textContent = total ? fmt(f.fbUsed / 1024, 1) + " / " + fmt(total / 1024, 1, "GiB") : "–";
			t.rows.temp.textContent = fmt(f.temp, 0, "°C");
			t.rows.temp.classList.toggle("hot", f.temp >= 85);
			t.rows.power.textContent = fmt(f.power, 0) + (f.powerLimit ? " / " + fmt(f.powerLimit, 0) : "") + " W";
			t.rows.smClock.textContent = fmt(f.smClock, 0, "MHz");
			t.rows.xid.textContent = f.xid ? String(f.xid) : "none";
			t.fill.style.width = Math.max(0, Math.min(100, f.util || 0)) + "%";
		}
	}

	async function sparklines() {
		const end = Date.now() / 1000;
		const data = await api("/api/v1/query_range", {
			query: "DCGM_FI_DEV_GPU_UTIL",
			start: (end - SPARK_RANGE_S).toFixed(3),
			end: end.toFixed(3),
			step: "5",
		});
		for (const s of data.result) {
			const t = tiles.get(s.metric.gpu);
			if (!t || typeof uPlot === "undefined")
				continue;
			const xs = s.values.map((p) => p[0]);
			const ys = s.values.map((p) => Number(p[1]));
			if (t.plot) {
				t.plot.setData([xs, ys]);
				continue;
			}
			t.plot = new uPlot({
				width: 230, height: 40, legend: { show: false }, cursor: { show: false },
				axes: [{ show: false }, { show: false }],
				scales: { x: { time: true }, y: { range: [0, 100] } },
				series: [{}, { stroke: getComputedStyle(document.body).getPropertyValue("--accent").trim() || "#1565c0", width: 1, points: { show: false } }],
			}, [xs, ys], t.spark);
		}
	}

	async function alerts() {
		const data = await api("/api/v1/alerts");
		const list = document.getElementById("alert-list");
		list.replaceChildren(...data.alerts.map((a) => {
			const li = el("li", a.state, a.labels.alertname + (a.labels.gpu !== undefined ? " (GPU " + a.labels.gpu + ")" : "") +
				": " + a.state + (a.annotations.summary ? " – " + a.annotations.summary : ""));
			return li;
		}));
		document.getElementById("alerts").hidden = data.alerts.length === 0;
	}

	async function loop() {
		try {
			await refresh();
			showError("");
		} catch (e) {
			showError(e.message);
		}
		try {
			await alerts();
		} catch (e) {
			/* without a history there is no rules API: the tiles still work */
		}
	}

	async function sparkLoop() {
		try {
			await sparklines();
		} catch (e) {
			/* the tiles' own errors are shown; a missing history only leaves the sparklines empty */
		}
	}

	/* ---- history ---------------------------------------------------------- */

	const CHARTS = [
		{ id: "util", title: "Utilisation (%)", query: "DCGM_FI_DEV_GPU_UTIL", range: [0, 100] },
		{ id: "mem", title: "Memory used (GiB)", query: "DCGM_FI_DEV_FB_USED / 1024" },
		{ id: "temp", title: "Temperature (°C)", query: "DCGM_FI_DEV_GPU_TEMP" },
		{ id: "power", title: "Power (W)", query: "DCGM_FI_DEV_POWER_USAGE" },
	];
	const COLORS = ["#1565c0", "#c62828", "#2e7d32", "#ef6c00", "#6a1b9a", "#00838f", "#ad1457", "#4e342e"];
	const HISTORY_MS = 30000;
	const charts = new Map(); /* id -> {box, plot, gpus} */

	/* The view's state lives in the URL's hash: range=SECONDS&gpu=INDEX. */
	function hashParams() {
		return new URLSearchParams(location.hash.slice(1));
	}

	function setHash(key, value) {
		const p = hashParams();
		if (value === null)
			p.delete(key);
		else
			p.set(key, value);
		location.hash = p.toString();
	}

	function rangeSeconds() {
		const sel = document.getElementById("range");
		const v = hashParams().get("range") || sel.value;
		if ([...sel.options].some((o) => o.value === v))
			sel.value = v;
		return Number(sel.value);
	}

	/* One chart: a series per GPU on a common time axis (query_range's steps; gaps as nulls). */
	function draw(def, data, start, end, step) {
		let c = charts.get(def.id);
		if (!c) {
			const box = el("div", "chart");
			box.dataset.chart = def.id;
			box.append(el("h3", "", def.title));
			document.getElementById("charts").append(box);
			c = { box, plot: null, gpus: "" };
			charts.set(def.id, c);
		}
		const xs = [];
		for (let t = start; t <= end + 1e-9; t += step)
			xs.push(Math.round(t * 1000) / 1000);
		const result = data.result.slice().sort((a, b) => Number(a.metric.gpu) - Number(b.metric.gpu));
		const ys = result.map((s) => {
			const byT = new Map(s.values.map((p) => [Math.round(p[0] * 1000) / 1000, Number(p[1])]));
			return xs.map((t) => (byT.has(t) ? byT.get(t) : null));
		});
		const gpus = result.map((s) => s.metric.gpu).join(",");
		c.box.dataset.series = String(result.length);
		c.box.dataset.points = String(xs.length);
		if (c.plot && c.gpus === gpus) {
			c.plot.setData([xs, ...ys]);
			return;
		}
		if (c.plot)
			c.plot.destroy();
		c.gpus = gpus;
		const width = Math.max(300, c.box.clientWidth - 12);
		c.plot = new uPlot({
			width, height: 180,
			cursor: { drag: { x: true, y: false, setScale: true } },
			scales: { x: { time: true }, y: def.range ? { range: def.range } : {} },
			series: [{}, ...result.map((s, i) => ({
				label: "GPU " + s.metric.gpu, stroke: COLORS[i % COLORS.length], width: 1, spanGaps: false,
				points: { show: false },
			}))],
			hooks: { setSelect: [(u) => {
				if (u.select.width > 0)
					document.getElementById("reset-zoom").hidden = false;
			}] },
		}, [xs, ...ys], c.box);
	}

	async function history() {
		const range = rangeSeconds();
		const step = Math.max(1, Math.ceil(range / 300));
		const end = Math.floor(Date.now() / 1000); /* the newest data, not the last whole step */
		const start = end - range;
		const section = document.getElementById("history");
		section.dataset.range = String(range);
		section.dataset.step = String(step);
		await Promise.all(CHARTS.map(async (def) => {
			const data = await api("/api/v1/query_range", { query: def.query, start, end, step });
			draw(def, data, start, end, step);
		}));
		section.dataset.drawn = String(Date.now());
	}

	async function historyLoop() {
		try {
			await history();
		} catch (e) {
			showError(e.message);
		}
	}

	/* ---- one GPU in detail: every series it has, and its processes ------------ */

	const COMMON = new Set(["__name__", "gpu", "UUID", "uuid", "device", "modelName", "model", "Hostname",
		"pci_bus_id", "DCGM_FI_DRIVER_VERSION", "instance", "job"]);

	function fmtValue(v) {
		const n = Number(v);
		if (!isFinite(n))
			return v;
		return Math.abs(n) >= 1e6 || (n !== 0 && Math.abs(n) < 1e-3) ? n.toExponential(3) : String(Math.round(n * 1000) / 1000);
	}

	/* The process lines of the exposition for one GPU: pid -> labels and values (the history keeps no processes). */
	function processes(text, gpu) {
		const byPid = new Map();
		const re = /^(gpuwatch_process_(?:memory_used_bytes|sm_utilization_ratio))\{(.*)\} (\S+)$/;
		for (const line of text.split("\n")) {
			const m = re.exec(line);
			if (!m)
				continue;
			const labels = {};
			for (const l of m[2].matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
				labels[l[1]] = l[2].replace(/\\(.)/g, (x, c) => (c === "n" ? "\n" : c));
			if (labels.gpu !== gpu)
				continue;
			const p = byPid.get(labels.pid) || { labels };
			p[m[1].endsWith("bytes") ? "mem" : "sm"] = Number(m[3]);
			byPid.set(labels.pid, p);
		}
		return [...byPid.values()].sort((a, b) => Number(a.labels.pid) - Number(b.labels.pid));
	}

	async function detail() {
		const gpu = hashParams().get("gpu");
		const section = document.getElementById("detail");
		for (const t of tiles.values())
			t.el.classList.toggle("selected", t.el.dataset.gpu === gpu);
		if (gpu === null || !/^\d+$/.test(gpu)) {
			section.hidden = true;
			return;
		}
		section.hidden = false;
		section.dataset.gpu = gpu;
		document.getElementById("detail-title").textContent = "GPU " + gpu;
		const [data, text] = await Promise.all([
			api("/api/v1/query", { query: '{gpu="' + gpu + '"}' }),
			fetch("/metrics").then((r) => (r.ok ? r.text() : "")),
		]);
		const rows = data.result.map((s) => {
			const extra = Object.entries(s.metric).filter(([k]) => !COMMON.has(k)).map(([k, v]) => k + '="' + v + '"');
			return [s.metric.__name__ + (extra.length ? "{" + extra.join(",") + "}" : ""), s.value[1]];
		}).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
		document.querySelector("#fields tbody").replaceChildren(...rows.map(([name, v]) => {
			const tr = el("tr");
			tr.append(el("td", "", name), el("td", "num", fmtValue(v)));
			return tr;
		}));
		section.dataset.fields = String(rows.length);
		const procs = processes(text, gpu);
		document.querySelector("#procs tbody").replaceChildren(...procs.map((p) => {
			const tr = el("tr");
			tr.dataset.pid = p.labels.pid;
			const who = ["container", "pod", "namespace", "slurm_job", "hpc_job", "user"].filter((k) => p.labels[k])
				.map((k) => k + " " + p.labels[k]).join(", ");
			tr.append(el("td", "num", p.labels.pid), el("td", "", p.labels.process || ""), el("td", "", p.labels.type || ""),
				el("td", "num", p.mem !== undefined ? fmt(p.mem / 1048576, 0, "MiB") : "–"),
				el("td", "num", p.sm !== undefined ? fmt(p.sm * 100, 0, "%") : "–"), el("td", "", who));
			return tr;
		}));
		section.dataset.processes = String(procs.length);
	}

	async function detailLoop() {
		try {
			await detail();
		} catch (e) {
			showError(e.message);
		}
	}

	document.getElementById("tiles").addEventListener("click", (e) => {
		const tile = e.target.closest(".tile");
		if (tile)
			setHash("gpu", tile.dataset.gpu);
	});
	document.getElementById("detail-close").addEventListener("click", (e) => {
		e.preventDefault();
		setHash("gpu", null);
	});
	document.getElementById("range").addEventListener("change", (e) => {
		setHash("range", e.target.value);
	});
	window.addEventListener("hashchange", () => {
		for (const c of charts.values())
			c.plot && c.plot.destroy();
		charts.clear();
		document.getElementById("charts").replaceChildren();
		document.getElementById("reset-zoom").hidden = true;
		historyLoop();
		detailLoop();
	});
	document.getElementById("reset-zoom").addEventListener("click", () => {
		window.dispatchEvent(new HashChangeEvent("hashchange"));
	});

	document.getElementById("host").textContent = location.host;
	loop();
	sparkLoop();
	historyLoop();
	setTimeout(detailLoop, 500); /* after the first tiles */
	setInterval(loop, REFRESH_MS);
	setInterval(detailLoop, SPARK_MS);
	setInterval(sparkLoop, SPARK_MS);
	setInterval(historyLoop, HISTORY_MS);
})();
