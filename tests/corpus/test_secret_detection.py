"""Credential detection on the labelled corpus and on the shapes real configurations hold.

The corpus (``tests/secret_corpus.py``) generates its values at import, so this repository holds none; the
figures here are the acceptance floor that ``bench/secrets_bench.py`` prints per shape.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from prooftext.corpus.assignments import key_strength
from prooftext.corpus.secrets import find_secrets, path_findings, redact_source, redact_text, repeats_in
from secret_corpus import Case, negatives, positives
from secret_corpus_holdout import holdout_negatives, holdout_positives

MIN_RECALL = 0.95
MAX_FALSE_POSITIVE_RATE = 0.02
MIN_HOLDOUT_RECALL = 0.85
"""The second corpus was written without looking at the rules (66.0% recall, 3.3% false positives when
first run); general fixes since brought it to 88.3% and 0.5%, and 89.1% with 13 positives added later
(docs/SECRETS_NOTES.md). This floor keeps
them, not a promise about shapes nobody has written down yet."""
ISSUE_SHAPES = {
    "env-pgpassword",
    "json-camel-clientSecret",
    "yaml-adminPassword",
    "yaml-token",
    "env-TOKEN",
    "py-API_TOKEN",
    "py-headers-bearer",
    "curl-bearer",
    "curl-u",
    "mysql-p",
    "sshpass-p",
    "url-redis",
    "netrc-oneline",
    "npmrc-authToken",
    "docker-config-auth",
    "py-getenv-or",
    "glued-aws-key",
    "path-aws-key",
}
"""The shapes a user found missed, each of which the corpus must hold."""


def _caught(case: Case) -> bool:
    if case.in_path:
        at = case.path.index(case.value)
        spans = [(f.start, f.end) for f in path_findings(case.path)]
    else:
        at = case.text.index(case.value)
        spans = [(f.start, f.end) for f in find_secrets(case.text, path=case.path)]
    return any(start <= at and at + len(case.value) <= end for start, end in spans)


def _fires(case: Case) -> bool:
    return bool(find_secrets(case.text, path=case.path) or path_findings(case.path))


def test_the_corpus_holds_every_shape_a_user_found_missed() -> None:
    assert {case.shape for case in positives()} >= ISSUE_SHAPES


def test_at_least_95_percent_of_credential_lines_are_found() -> None:
    cases = positives()
    missed = sorted(case.shape for case in cases if not _caught(case))
    assert 1 - len(missed) / len(cases) >= MIN_RECALL, missed


def test_at_most_2_percent_of_look_alikes_are_taken_for_credentials() -> None:
    cases = negatives()
    fired = sorted(case.shape for case in cases if _fires(case))
    assert len(fired) / len(cases) <= MAX_FALSE_POSITIVE_RATE, fired


def test_the_second_corpus_stays_above_its_floor() -> None:
    found = [_caught(case) for case in holdout_positives()]
    fired = [_fires(case) for case in holdout_negatives()]
    assert sum(found) / len(found) >= MIN_HOLDOUT_RECALL
    assert sum(fired) / len(fired) <= MAX_FALSE_POSITIVE_RATE


def test_the_corpus_and_its_bench_hold_no_credential_themselves() -> None:
    here = Path(__file__).resolve().parents[2]
    for rel in ("tests/secret_corpus.py", "bench/secrets_bench.py"):  # the second quotes redis.conf
        assert find_secrets((here / rel).read_text(), path=rel) == [], rel


@pytest.mark.parametrize(
    ("key", "strength"),
    [
        ("PGPASSWORD", "strong"),
        ("dbPassword", "strong"),
        ("clientSecret", "strong"),
        ("ClearTextPassword", "strong"),
        ("API_TOKEN", "weak"),
        ("_authToken", "weak"),
        ("x-api-key", "weak"),
        ("auth", "weak"),
        ("PASSWORD_RESET_TIMEOUT", None),
        ("TOKEN_TYPE", None),
        ("secretName", None),
        ("max_tokens", None),
        ("tokenizer", None),
        ("keyboard", None),
    ],
)
def test_a_key_names_a_credential_by_its_words_unless_a_later_word_says_it_is_about_one(
    key: str, strength: str | None
) -> None:
    assert key_strength(key) == strength


def test_redaction_keeps_the_quotes_so_a_json_excerpt_stays_json() -> None:
    value = "q8Zr" + "T2vLx9" + "!pK4w"
    text = json.dumps({"apiKey": value, "clientSecret": value, "region": "eu-west-1"}, indent=2)
    redacted = redact_text(text, "config/app.json")
    assert value not in redacted
    assert json.loads(redacted)["apiKey"] == "[REDACTED:password-assignment]"


@pytest.mark.parametrize(
    "line",
    [
        'password = os.getenv("P") or "{v}"',
        'x = os.environ.get("DB_SECRET", "{v}")',
        "define('DB_PASSWORD', '{v}');",
        '<add key="DbPassword" value="{v}" />',
        'password: str = "{v}"',
    ],
)
def test_a_literal_given_to_a_credential_key_in_code_is_found(line: str) -> None:
    value = "Wq7" + "zK2" + "#vN9" + "pL4"
    text = line.format(v=value)
    assert value not in redact_text(text, "app.py")


@pytest.mark.parametrize(
    "line",
    [
        'FILES = [("dbPassword", "conf/db.pass")]',
        "password = get_password()",
        'token = os.environ["TOKEN"]',
        "var secrets = gin.H{",
        'curl -H "Authorization: Bearer $TOKEN" https://api.example.com',
        "docker run -u 1000:1000 image",
        "def login(password: str) -> None:",
    ],
)
def test_a_reference_a_template_or_a_tuple_of_names_is_not_a_credential(line: str) -> None:
    assert find_secrets(line, path="app.py") == find_secrets(line, path="run.sh") == []


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ("client.py", 'session.auth = HTTPBasicAuth("deploy", "{v}")'),
        ("client.py", 'requests.get(url, auth=("deploy", "{v}"))'),
        ("mail.py", 'server.login("alerts@corp.io", "{v}")'),
        ("Db.java", 'ds.setPassword("{v}");'),
        ("Db.java", 'String url = "jdbc:sqlserver://db:1433;user=sa;password={v};";'),
        ("settings.xml", "<passphrase>{v}</passphrase>"),
        ("backup.sh", "mongodump --username backup --password {v} --out /srv"),
        ("flush.sh", "redis-cli -h cache.internal -a {v} FLUSHDB"),
        ("redis.conf", "requirepass {v}"),
        (".pgpass", "db.internal:5432:billing:deploy:{v}"),
        (".env", "SMTP_PASS={v}"),
    ],
)
def test_credentials_in_calls_connection_strings_flags_and_known_files_are_found(
    path: str, line: str
) -> None:
    value = "Wq7" + "zK2" + "vN9" + "pL4"
    assert value not in redact_text(line.format(v=value), path)


def test_an_app_password_of_plain_lowercase_letters_is_found_under_a_strong_key() -> None:
    value = "qwhzkvnrtplmbsxd"  # the shape of a mail provider's app password: 16 lowercase letters
    assert value not in redact_text(f"SMTP_PASSWORD={value}\n", ".env")


@pytest.mark.parametrize(
    ("path", "line"),
    [
        (
            "policy.json",
            '"Resource": "arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/db-password"',
        ),
        ("policy.json", '"Action": "secretsmanager:GetSecretValue"'),
        (".github/workflows/ci.yml", "DATABASE_URL: postgres://postgres:postgres@localhost:5432/test"),
        ("docs/admin.md", "mongosh --host db.internal -u admin -p --authenticationDatabase admin"),
        ("redis.conf", "# requirepass foobared"),
        ("fixtures/users.json", '"password": "pbkdf2_sha256$600000$salt$hash"'),
        ("map.js", "mapboxgl.accessToken = 'pk.eyJ1IjoiZXhhbXBsZSJ9.abc123def456';"),
        ("notes.txt", "db.internal:5432:billing:deploy:not-a-pgpass-file"),
    ],
)
def test_names_default_logins_prompts_hashes_and_public_keys_are_not_credentials(
    path: str, line: str
) -> None:
    assert find_secrets(line, path=path) == []


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ("notebooks/explore.ipynb", '    "api_key = \\"{v}\\"\\n",'),
        ("notebooks/explore.ipynb", '    "password = \\"{v}\\"\\n",'),
        ("ci/job.json", '{{"script": "deploy --token \\"{v}\\""}}'),
        ("ci/job.json", '{{"body": "{{\\"clientSecret\\": \\"{v}\\"}}"}}'),
    ],
)
def test_a_value_in_escaped_quotes_inside_a_json_string_is_found(path: str, line: str) -> None:
    value = "Wq7" + "zK2" + "vN9" + "pL4"
    text = line.format(v=value)
    assert value not in redact_text(text, path)
    assert json.loads(redact_text("[" + text.strip().rstrip(",") + "]", path))  # still JSON


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ("Dockerfile", "ENV DB_PASSWORD {v}"),
        ("docker/api.Dockerfile", "ENV API_TOKEN {v}"),
        ("src/main.rs", 'let api_key: &str = "{v}";'),
        ("src/main.rs", 'const DB_PASSWORD: &\'static str = "{v}";'),
    ],
)
def test_a_dockerfile_env_without_equals_and_a_rust_str_constant_are_found(path: str, line: str) -> None:
    value = "Wq7" + "zK2" + "vN9" + "pL4"
    assert value not in redact_text(line.format(v=value), path)


def _putty_key(body_lines: int) -> tuple[str, str]:
    line = "AAAAB3Nza" + "C1yc2EAAAA" + "BJQAAAQEA" + "q7Zw9K2vN9pL4x8R" * 3
    text = (
        "PuTTY-User-Key-File-3: ssh-rsa\nEncryption: none\nComment: deploy\nPublic-Lines: 1\n"
        f"{line[::-1]}\nPrivate-Lines: {body_lines}\n" + f"{line}\n" * body_lines + "Private-MAC: 0a1b2c\n"
    )
    return text, line


def test_a_putty_private_key_is_found_and_redacted_line_by_line() -> None:
    text, body = _putty_key(2)
    found = find_secrets(text, path="keys/deploy.ppk")
    assert [f.rule for f in found] == ["private-key"]
    redacted = redact_text(text, "notes.txt")
    assert body not in redacted and redacted.count("\n") == text.count("\n")


def test_a_putty_key_with_no_private_lines_is_not_a_private_key() -> None:
    text, _ = _putty_key(0)
    assert find_secrets(text, path="keys/deploy.ppk") == []


PAIR_VALUE = "Wq7" + "zK2"  # six characters: shorter than a value redacted wherever it recurs


@pytest.mark.parametrize(
    ("path", "text"),
    [
        (
            "k8s/deploy.yaml",
            "env:\n  - name: DB_PASSWORD\n    value: {v}\n  - name: LOG_LEVEL\n    value: debug\n",
        ),
        ("k8s/deploy.yaml", 'env:\n  - name: "API_TOKEN"\n    value: "{v}9pL4"\n'),
        ("ecs/task.json", '[{{"name": "DB_PASSWORD", "value": "{v}"}}, {{"name": "PORT", "value": "80"}}]\n'),
        ("ecs/task.json", '{{\n  "name": "DB_PASSWORD",\n  "value": "{v}"\n}}\n'),
        ("cfn/params.json", '[{{"ParameterKey": "DbPassword", "ParameterValue": "{v}"}}]\n'),
        ("compose.yaml", "environment:\n  - {{name: SMTP_PASS, value: {v}}}\n"),
    ],
)
def test_a_value_paired_with_a_credential_name_is_found_on_its_line_or_the_next(path: str, text: str) -> None:
    text = text.format(v=PAIR_VALUE)
    redacted = redact_text(text, path)
    assert PAIR_VALUE not in redacted
    assert "debug" in redacted or "debug" not in text  # a pair of another name keeps its value
    if path.endswith(".json"):
        assert json.loads(redacted)


def test_an_excerpt_holding_only_the_value_line_of_a_pair_is_redacted_as_the_whole_file_is() -> None:
    text = f"env:\n  - name: DB_PASSWORD\n    value: {PAIR_VALUE}\n"
    path = "k8s/deploy.yaml"
    whole = redact_source(text, find_secrets(text, path=path))
    assert PAIR_VALUE not in whole
    value_line = text.split("\n")[2]
    assert redact_text(value_line, path, repeats_in(text, path)) == whole.split("\n")[2]


@pytest.mark.parametrize(
    "text",
    [
        "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: db\n        key: password\n",
        "env:\n  - name: DB_PASSWORD\n  - name: OTHER\n    value: Wq7zK2vN9pL4\n",
        "env:\n  - name: DB_PASSWORD_FILE\n    value: /run/secrets/db_password\n",
        "env:\n  - name: API_TOKEN\n    value: ${{ secrets.API_TOKEN }}\n",
        "fields:\n  - name: password\n    value: ''\n",
    ],
)
def test_a_pair_whose_value_is_a_reference_a_path_or_absent_is_not_a_credential(text: str) -> None:
    assert find_secrets(text, path="k8s/deploy.yaml") == []


_BEGIN = "-----BEGIN RSA " + "PRIVATE KEY-----"
_END = "-----END RSA " + "PRIVATE KEY-----"
_BODY = [
    "MIIEowIBAAKCAQEAq7Zw9K2vN9pL4x8RWq7zK2vN9pL4x8RWq7zK2vN9pL4x8RWq",
    "Zm9vYmFyYmF6cXV4cXV1eA9K2vN9pL4x8RWq7zK2vN9pL4x8RWq7zK2vN9pL4x8R",
]


@pytest.mark.parametrize(
    ("path", "text"),
    [
        (
            "keys.py",
            f'def is_pem(text):\n    return text.startswith("{_BEGIN}")\n\n\n'
            'def load_private_key_from_environment_variable(name):\n    """Load the deploy key."""\n'
            "    return os.environ[name]\n",
        ),
        (
            "docs/keys.md",
            f"# Keys\n\nA key file starts with `{_BEGIN}` and ends with the matching END line.\n"
            "Never commit such a file: keep it in the secrets manager and name it in the deployment.\n",
        ),
    ],
)
def test_a_source_that_only_names_the_private_key_marker_is_kept_whole(path: str, text: str) -> None:
    assert find_secrets(text, path=path) == []
    assert redact_text(text, path) == text


@pytest.mark.parametrize(
    "text",
    [
        "\n".join([_BEGIN, *_BODY, _END]) + "\n",
        "\r\n".join([_BEGIN, *_BODY, _END]) + "\r\n",
        "\n".join([_BEGIN, "Proc-Type: 4,ENCRYPTED", "DEK-Info: AES-128-CBC,0A1B2C3D", "", *_BODY, _END]),
        'KEY = ("'
        + _BEGIN
        + '\\n"\n'
        + "".join(f'       "{line}\\n"\n' for line in _BODY)
        + f'       "{_END}")\n',
        'String key = "'
        + _BEGIN
        + '" + "\\n" +\n'
        + "".join(f'    "{line}" + "\\n" +\n' for line in _BODY)
        + "    null;\n",
        '{"private_key": "' + _BEGIN + "\\n" + "\\n".join(_BODY) + "\\n" + _END + '\\n"}\n',
        "tls:\n  key: |\n    " + "\n    ".join([_BEGIN, *_BODY, _END]) + "\n",
    ],
    ids=["pem", "crlf", "encrypted", "python", "java", "json", "yaml"],
)
def test_a_private_key_is_found_in_a_file_and_inside_code(text: str) -> None:
    assert [f.rule for f in find_secrets(text, path="k.txt")] == ["private-key"]


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ("nginx/site.conf", 'proxy_set_header Authorization "Basic {v}";'),
        ("apache/site.conf", 'RequestHeader set Authorization "Bearer {v}"'),
    ],
)
def test_an_authorization_header_set_by_a_server_directive_is_found(path: str, line: str) -> None:
    value = "ZGVwbG95Olpx" + "OHJUMnZMeDlwSzR3"
    assert value not in redact_text(line.format(v=value), path)


def test_prose_about_the_authorization_header_is_not_a_credential() -> None:
    text = (
        "Send the Authorization Basic authentication header, or set Authorization bearer tokens per user.\n"
    )
    assert find_secrets(text, path="docs/auth.md") == []


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ("notebook.py", 'os.environ["API_KEY"] = "{v}"'),
        ("app.py", "config['password'] = '{v}'"),
        ("boot.rb", "ENV['API_KEY'] = '{v}'"),
        ("boot.php", "$_ENV['DB_PASSWORD'] = '{v}';"),
        ("client.js", 'headers["X-Api-Key"] = "{v}";'),
        ("client.go", 'req.Header.Set("X-Api-Key", "{v}")'),
        ("Makefile", "DEPLOY_TOKEN ?= {v}"),
        ("init.sql", "CREATE USER app IDENTIFIED BY '{v}';"),
        ("init.sql", "ALTER ROLE app WITH LOGIN PASSWORD '{v}';"),
    ],
)
def test_a_literal_given_by_subscript_call_make_or_sql_is_found(path: str, line: str) -> None:
    value = "Zq8" + "rT2vLx9" + "pK4w"
    assert value not in redact_text(line.format(v=value), path)


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ("app.py", 'password = request.form["password"]'),
        ("app.py", 'if config["password"] == "":'),
        ("app.py", 'fields["password"] = forms.CharField(widget=forms.PasswordInput)'),
        ("init.sql", "ALTER ROLE app WITH LOGIN PASSWORD NULL;"),
        ("docs/db.md", "Run `ALTER ROLE app PASSWORD '<password>'` with your own value."),
        ("client.go", 'req.Header.Set("Authorization", "Bearer "+token)'),
        ("fonts/name.py", '"""Set the string for the name record identified by \'nameID\'."""'),
    ],
)
def test_a_subscript_a_form_field_or_an_sql_placeholder_is_not_a_credential(path: str, line: str) -> None:
    assert find_secrets(line, path=path) == []


@pytest.mark.parametrize(
    "name",
    [
        "docs/xoxb-token-setup-guide.md",
        "docs/glpat-rotation-howto-guide.md",
        "notes/xoxp-exporter-for-slack.txt",
    ],
)
def test_a_file_named_with_a_token_prefix_then_plain_words_is_not_a_credential(name: str) -> None:
    assert path_findings(name) == []
    assert find_secrets(f"See {name} first.\n", path="README.md") == []


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ("main.go", 'var dbPassword string = "{v}"'),
        ("wifi.h", '#define WIFI_PASSWORD "{v}"'),
        ("config.c", '#  define API_KEY "{v}"'),
    ],
)
def test_a_go_typed_var_and_a_c_define_are_found(path: str, line: str) -> None:
    value = "Zq8" + "rT2vLx9" + "pK4w"
    assert value not in redact_text(line.format(v=value), path)


def test_a_c_define_naming_another_macro_is_not_a_credential() -> None:
    assert find_secrets("#define API_KEY_HEADER API_KEY_NAME\n#define PASSWORD_LEN 64\n", path="a.h") == []


@pytest.mark.parametrize(
    "name",
    ["sales/ASIAPACIFICSALES2024.csv", "reports/AKIA0123456789ABCDEF.txt", "data/ASIA1980S_MUSIC_CHART.md"],
)
def test_an_aws_prefix_then_a_body_that_is_not_base32_is_not_an_access_key_id(name: str) -> None:
    """Access key ids are base32 after their prefix (``A-Z`` and ``2-7``, as gitleaks reads them): a ``0``,
    ``1``, ``8`` or ``9`` in the body says it is a word or a number, not a key."""
    assert path_findings(name) == []
    stem = name.rsplit("/", 1)[1].split(".")[0]
    assert [f.rule for f in find_secrets(f"id = {stem}\n", path="notes.txt")] == []


def test_an_access_key_id_with_a_base32_body_is_still_found() -> None:
    key = "ASIA" + "QWERTYUIOPASDF27"
    assert [f.rule for f in find_secrets(f"key = {key}\n", path="notes.txt")] == ["aws-access-key-id"]
    assert [f.rule for f in path_findings(f"backup_{key}.txt")] == ["aws-access-key-id"]


_GLUED_BODY = "aB3dE5fG7hJ9" + "kL1mN3pQ5rS7" + "tU9vW1xY3zA5"


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("import" + "ghp_" + _GLUED_BODY, "github-token"),
        ("token" + "xoxb-1234567890-1234567890123-" + _GLUED_BODY, "slack-token"),
        ("key" + "sk_live_" + _GLUED_BODY, "stripe-secret-key"),
        (
            "HF_TOKEN"
            + "hf_"
            + _GLUED_BODY.replace("1", "q")
            .replace("3", "W")
            .replace("5", "e")
            .replace("7", "R")
            .replace("9", "t")[:34],
            "huggingface-token",
        ),
    ],
)
def test_a_provider_token_glued_to_a_word_is_found(text: str, rule: str) -> None:
    assert [f.rule for f in find_secrets(text + "\n", path="notes.txt")] == [rule]


@pytest.mark.parametrize(
    "line",
    [
        "shelf_ThisIsAVeryLongCamelCaseNamesXY = 1",
        "benchmark_test_SomeLongCamelCaseName(x)",
        "risk_live_PortfolioExposureSummary = {}",
        "AIza" + "AAAAAAAAAAAAAAAA",
        "BASE64" + "AKIA" + "QWERTYUIOPASDF27",
    ],
)
def test_a_name_after_a_word_or_an_alphanumeric_prefix_inside_a_run_is_not_a_token(line: str) -> None:
    assert find_secrets(line + "\n", path="src/app.py") == []


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ("Client.kt", 'val h = mapOf("Accept" to "text/plain", "Authorization" to "Bearer {v}")'),
        ("Db.kt", 'val props = mapOf("user" to "app", "password" to "{v}")'),
        ("Db.scala", 'val props = Map("password" -> "{v}")'),
        ("Program.cs", 'builder.Configuration["Jwt:Secret"] = "{v}";'),
        ("Startup.cs", "Configuration['Smtp:Password'] = '{v}';"),
        ("deploy.ps1", '$pw = ConvertTo-SecureString "{v}" -AsPlainText -Force'),
        ("deploy.ps1", "$pw = convertto-securestring -String '{v}' -asplaintext -force"),
    ],
)
def test_kotlin_pairs_dotnet_configuration_keys_and_plain_text_secure_strings_are_found(
    path: str, line: str
) -> None:
    value = "Zq8" + "rT2vLx9" + "pK4w"
    assert value not in redact_text(line.format(v=value), path)


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ("Client.kt", 'val h = mapOf("Authorization" to "Bearer $token", "password" to password)'),
        ("Program.cs", 'var secret = builder.Configuration["Jwt:Secret"];'),
        ("lambda.py", 'env["SECRET_ARN"] = "arn:aws:secretsmanager:eu-west-1:1:secret:db-password-Ab12Cd"'),
        ("deploy.ps1", "$pw = ConvertTo-SecureString $env:DEPLOY_PASSWORD -AsPlainText -Force"),
        ("deploy.ps1", '$pw = ConvertTo-SecureString "$Password" -AsPlainText -Force'),
        ("restore.ps1", '$enc = ConvertTo-SecureString "01000000d08c9ddf0115d1118c7a00c04fc297eb"'),
    ],
)
def test_a_kotlin_reference_a_configuration_read_or_an_encrypted_secure_string_is_not_a_credential(
    path: str, line: str
) -> None:
    assert find_secrets(line, path=path) == []


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ("settings.py", 'API_KEYS = ["{v}", "{w}"]'),
        ("config.js", "const accessTokens = ['{v}', '{w}'];"),
        ("users.yml", "admin_passwords: [{v}, {w}]"),
        ("auth.json", '{{"apiKeys": ["{v}", "{w}"], "ttl": 60}}'),
    ],
)
def test_every_literal_of_a_list_under_a_credential_name_is_found(path: str, line: str) -> None:
    first, second = "Zq8" + "rT2vLx9" + "pK4w", "Hm3" + "yW7cNb2" + "qD9s"
    redacted = redact_text(line.format(v=first, w=second), path)
    assert first not in redacted
    assert second not in redacted


@pytest.mark.parametrize(
    "line",
    [
        'SECRET_KEYS = ["SECRET_KEY", "API_TOKEN"]',
        'sensitive_passwords = ["db-password", "apiKey"]',
        "api_keys = [key for key in keys if key]",
        'stop_tokens = ["</s>", "abc123def456ghi"]',
        'tokens = ["hello", "world2024edition"]',
        "token_variants = ['+i6t-not-inline', '+i6t-inline']",
        '_pass_through_attributes = ["Condition", "DeletionPolicy"]',
        'API_KEYS = ["Zq8rT2vLx9pK4w", os.environ["K"]]',
    ],
)
def test_a_list_of_names_an_expression_or_a_tokenizers_tokens_is_not_a_credential(line: str) -> None:
    assert find_secrets(line + "\n", path="settings.py") == []


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("users.yml", "admin_passwords:\n  - {v}\n  - '{w}'\nusers: 2\n"),
        ("keys.yaml", "service:\n  api_keys:\n  - {v}\n  - {w}\n  timeout: 30\n"),
        ("values.yaml", "db:\n  password: |\n    {v}\n  secret: >-\n\n    {w}\n  user: app\n"),
    ],
)
def test_a_yaml_value_on_the_lines_after_its_credential_key_is_found_and_redacted_in_any_excerpt(
    path: str, text: str
) -> None:
    first, second = "Zq8" + "rT2vLx9" + "pK4w", "Hm3" + "yW7cNb2" + "qD9s"
    whole = text.format(v=first, w=second)
    redacted = redact_source(whole, find_secrets(whole, path=path)).split("\n")
    repeats = repeats_in(whole, path)
    for at in range(len(redacted)):  # an excerpt that leaves the key's line out is still redacted
        assert redact_text("\n".join(whole.split("\n")[at:]), path, repeats) == "\n".join(redacted[at:])
    assert first not in "\n".join(redacted)
    assert second not in "\n".join(redacted)


@pytest.mark.parametrize(
    "text",
    [
        "secrets:\n  - DB_PASSWORD\n  - API_TOKEN\n",
        "passwords:\n  - name: admin\n    value: ${{ secrets.ADMIN }}\n",
        "tokens:\n  - Ab3dE5fG7hJ9kL1mN3pQ\n",
        "secret_script: |\n  echo setting the password\n  vault kv get db\n",
        "password: |\n  ${DB_PASSWORD}\n",
        "db_password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  6231386263\n",
    ],
)
def test_a_yaml_block_of_names_a_script_a_template_or_a_vault_is_not_a_credential(text: str) -> None:
    assert find_secrets(text, path="config.yml") == []
