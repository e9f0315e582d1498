/*
 * leadcheck signup-form guard. Served as /widget.js; plain ES2017, no dependencies.
 *
 *   <script src="https://leadcheck.example/widget.js" data-key="pk_..." async></script>
 *
 * Every input[type=email] (or [data-leadcheck]) in a form is checked on blur and before submit.
 * Invariants:
 * - A submit is never held longer than the deadline (data-deadline-ms, default 3000 ms, at most
 *   10000): past it, or on any network or server error, the form submits (fail open).
 * - Only the statuses named in data-block (default "invalid") stop a submit; "unknown" never does
 *   and shows nothing.
 * - The verdict's token goes into a hidden field (data-token-field, default "leadcheck_token") so the
 *   form's backend can confirm it with POST /v1/widget/confirm and a secret key.
 * Attributes: data-key (required), data-api (service origin; default: this script's origin),
 * data-block ("invalid disposable role free"), data-lang (en de fr es pl; default: the page's lang),
 * data-deadline-ms, data-token-field.
 */
(() => {
  const script = document.currentScript;
  if (!script || !window.fetch) return;
  const data = script.dataset;
  const key = data.key;
  if (!key) return;
  const api = (data.api || new URL(script.src, location.href).origin).replace(/\/+$/, "");
  const deadlineMs = Math.min(Math.max(Number(data.deadlineMs) || 3000, 500), 10000);
  const block = (data.block || "invalid").split(/[\s,]+/);
  const tokenField = data.tokenField || "leadcheck_token";
  const texts = {
    en: {
      typo: "Did you mean {}?",
      invalid: "This email address does not seem to exist.",
      disposable: "Please use a permanent email address, not a disposable one.",
      role: "Please use a personal address, not a shared one such as info@.",
      free: "Please use your work email address.",
    },
    de: {
      typo: "Meinten Sie {}?",
      invalid: "Diese E-Mail-Adresse scheint nicht zu existieren.",
      disposable: "Bitte verwenden Sie eine dauerhafte E-Mail-Adresse, keine Wegwerfadresse.",
      role: "Bitte verwenden Sie eine persönliche Adresse, keine Sammeladresse wie info@.",
      free: "Bitte verwenden Sie Ihre geschäftliche E-Mail-Adresse.",
    },
    fr: {
      typo: "Vouliez-vous dire {} ?",
      invalid: "Cette adresse e-mail ne semble pas exister.",
      disposable: "Veuillez utiliser une adresse e-mail permanente, pas une adresse jetable.",
      role: "Veuillez utiliser une adresse personnelle, pas une adresse partagée comme info@.",
      free: "Veuillez utiliser votre adresse e-mail professionnelle.",
    },
    es: {
      typo: "¿Quisiste decir {}?",
      invalid: "Esta dirección de correo no parece existir.",
      disposable: "Usa una dirección de correo permanente, no una desechable.",
      role: "Usa una dirección personal, no una compartida como info@.",
      free: "Usa tu dirección de correo del trabajo.",
    },
    pl: {
      typo: "Czy chodziło o {}?",
      invalid: "Ten adres e-mail prawdopodobnie nie istnieje.",
      disposable: "Użyj stałego adresu e-mail, a nie jednorazowego.",
      role: "Użyj adresu osobistego, a nie wspólnego, takiego jak info@.",
      free: "Użyj służbowego adresu e-mail.",
    },
  };
  const lang = (data.lang || document.documentElement.lang || "en").slice(0, 2).toLowerCase();
  const text = texts[lang] || texts.en;
  const results = {};
  let seq = 0;

  function check(email) {
    if (!results[email]) {
      const controller = window.AbortController ? new AbortController() : null;
      const timer = setTimeout(() => controller?.abort(), deadlineMs);
      results[email] = fetch(api + "/v1/widget/check-email?key=" + encodeURIComponent(key), {
        method: "POST",
        mode: "cors",
        credentials: "omit",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ email: email }),
        signal: controller ? controller.signal : undefined,
      })
        .then((res) => (res.ok ? res.json() : null))
        .catch(() => null)
        .then((verdict) => {
          clearTimeout(timer);
          // A failed or unanswered check is forgotten, so the next blur asks again.
          if (!verdict || verdict.status === "unknown") delete results[email];
          return verdict;
        });
    }
    return results[email];
  }

  /** The reason to block or warn, in the order a visitor can act on: a typo first. */
  function problem(verdict) {
    if (!verdict) return null;
    if (verdict.disposable) return "disposable";
    if (verdict.status === "invalid") return "invalid";
    if (verdict.role) return "role";
    if (verdict.free) return "free";
    return null;
  }

  function messageFor(input) {
    const id = input.getAttribute("data-leadcheck-message");
    let node = id && document.getElementById(id);
    if (node) return node;
    node = document.createElement("div");
    node.id = "leadcheck-msg-" + ++seq;
    node.className = "leadcheck-message";
    node.setAttribute("aria-live", "polite");
    node.style.cssText = "font-size:.875em;margin:.25em 0;color:#9a3412";
    input.insertAdjacentElement("afterend", node);
    input.setAttribute("data-leadcheck-message", node.id);
    const described = input.getAttribute("aria-describedby");
    input.setAttribute("aria-describedby", described ? described + " " + node.id : node.id);
    return node;
  }

  function tokenInput(form) {
    let field = form.querySelector('input[name="' + tokenField + '"]');
    if (!field) {
      field = document.createElement("input");
      field.type = "hidden";
      field.name = tokenField;
      form.appendChild(field);
    }
    return field;
  }

  /** Shows the verdict beside the input and says whether it blocks the submit. */
  function show(input, verdict) {
    const node = messageFor(input);
    node.textContent = "";
    input.setCustomValidity("");
    if (input.form && verdict?.token) tokenInput(input.form).value = verdict.token;
    if (!verdict) return false;
    if (verdict.didYouMean) {
      const parts = text.typo.split("{}");
      const fix = document.createElement("button");
      fix.type = "button";
      fix.className = "leadcheck-fix";
      fix.textContent = verdict.didYouMean;
      fix.style.cssText =
        "font:inherit;padding:0;border:0;background:none;color:inherit;text-decoration:underline;cursor:pointer";
      fix.addEventListener("click", () => {
        input.value = verdict.didYouMean;
        input.dispatchEvent(new Event("input", { bubbles: true }));
        input.focus();
        run(input);
      });
      node.append(parts[0], fix, parts[1] || "");
    }
    const reason = problem(verdict);
    const blocks = reason !== null && block.indexOf(reason) >= 0;
    if (reason && (blocks || reason === "disposable" || reason === "invalid")) {
      if (node.firstChild) node.append(" ");
      node.append(text[reason]);
    }
    if (blocks) input.setCustomValidity(text[reason]);
    return blocks;
  }

  function run(input) {
    const email = input.value.trim();
    if (!email || email.indexOf("@") < 1) {
      show(input, null);
      return Promise.resolve(false);
    }
    return check(email).then((verdict) => input.value.trim() === email && show(input, verdict));
  }

  function within(promise) {
    return Promise.race([promise, new Promise((done) => setTimeout(() => done(false), deadlineMs))]);
  }

  const selector = 'input[type="email"], input[data-leadcheck]';
  function attach(input) {
    if (input.leadcheckAttached || !input.form) return;
    input.leadcheckAttached = true;
    input.addEventListener("blur", () => run(input));
    // A changed address drops the old verdict's block until it is checked again.
    input.addEventListener("input", () => input.setCustomValidity(""));
    const form = input.form;
    if (form.leadcheckAttached) return;
    form.leadcheckAttached = true;
    form.addEventListener("submit", (event) => {
      if (form.leadcheckPassed) {
        form.leadcheckPassed = false;
        return;
      }
      event.preventDefault();
      const inputs = [].slice.call(form.querySelectorAll(selector));
      within(Promise.all(inputs.map(run))).then((blocked) => {
        if (blocked?.indexOf && blocked.indexOf(true) >= 0) {
          form.reportValidity();
          return;
        }
        form.leadcheckPassed = true;
        const submitter = event.submitter;
        // A known verdict settles while the first submit is still being dispatched, and a form
        // ignores a submit requested during its own submit event: request it on the next task.
        setTimeout(() => {
          if (form.requestSubmit)
            form.requestSubmit(submitter && submitter.form === form ? submitter : undefined);
          else form.submit();
        }, 0);
      });
    });
  }

  function scan(root) {
    if (root.matches?.(selector)) attach(root);
    if (root.querySelectorAll) [].forEach.call(root.querySelectorAll(selector), attach);
  }
  function start() {
    scan(document);
    new MutationObserver((changes) => {
      changes.forEach((change) => {
        [].forEach.call(change.addedNodes, scan);
      });
    }).observe(document.documentElement, { childList: true, subtree: true });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
