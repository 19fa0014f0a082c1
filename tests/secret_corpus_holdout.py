"""A second, hold-out corpus of credential lines and look-alikes, for an honest estimate of a secret detector.

``tests/secret_corpus.py`` is the corpus prooftext's detector was tuned on, so its score there is optimistic.
This corpus was written afterwards and *blind* (without reading the detector's rules), from the shapes real
repositories and configuration files hold: container and cluster manifests (docker-compose ``environment:``
lists, Kubernetes ``stringData:`` and kubeconfig, Helm values), provisioning (Ansible vars and inventories,
Terraform ``.tfvars`` and ``.terraformrc``), CI files, credential files (``.pgpass``, ``pip.conf``,
``.pypirc``, Maven ``settings.xml``, ``gradle.properties``, ``.git-credentials``, ``.cargo``, ``.gem``,
``.databrickscfg``, ``.s3cfg``, ``.vault-token``, ``/etc/fstab``, ``wpa_supplicant.conf``), framework
settings (``wp-config.php``, Laravel ``.env``, Rails ``database.yml`` and ``master.key``, Django
``DATABASES``), connection URLs and strings (SQLAlchemy, JDBC, C#), code (``requests`` ``auth=``,
``HTTPBasicAuth``, Java ``setPassword``, PowerShell ``ConvertTo-SecureString``, PHP ``PDO``, Go DSNs,
``smtplib`` logins), command lines (``git clone`` with a token, ``expect`` scripts, ``redis-cli -a``,
``mongodump --password``, ``openssl -passout``, ``keytool``, ``htpasswd -b``, ``chpasswd``), private keys
(PEM, OpenSSH, a GCP service-account JSON), and provider tokens in the format their providers document
(DigitalOcean, Vault, Shopify, Grafana, Databricks, Doppler, Linear, Postman, Mailgun, Mailchimp, Heroku,
Atlassian, GitLab runner, Slack app and user, Sentry, Firebase Cloud Messaging, Twitch, Dropbox, Terraform
Cloud, crates.io, RubyGems, New Relic, Pulumi, Supabase, PlanetScale, Docker Hub, SonarQube, Brevo,
Notion, Figma, Contentful, Mapbox, Groq, Replicate, Discord bot, Okta, Azure DevOps, Azure SAS, Google
OAuth client secret, AWS session token, Codecov, Netlify, Buildkite).

It uses the :class:`secret_corpus.Case` type and the same scoring (``bench/secrets_bench.py --holdout``). No
secret is stored: every value is generated at import from a ``random.Random`` seeded by the SHA-256 of
``"holdout:" + label`` (so the values differ from the first corpus's), and :func:`_p` refuses a value that
spells a placeholder word (the first corpus's list: ``example``, ``test``, ``secret``, ``token``, ...).

Judgement calls (documented so a reviewer can disagree)
    * positives: a modern Sentry DSN's key (Sentry calls it public, but it lets anyone post events to the
      project), a Codecov upload token (a UUID, after ``CODECOV_TOKEN``), a Rails ``config/master.key`` (a
      bare hex line: only the file name says what it is), a PEM or OpenSSH private key (the value is the
      base64 body: a finding on the header line alone does not cover it), Laravel's ``APP_KEY`` (the value is
      the base64 after ``base64:``).
    * negatives: encrypted values (SOPS ``ENC[...]``, Bitnami sealed secrets, Travis ``secure:``, Jasypt
      ``ENC(...)``), password *hashes* (bcrypt, Django ``pbkdf2_sha256$...`` fixtures, ``.htpasswd``,
      ``/etc/shadow``), public material (certificates, CA bundles, SSH and age public keys, JWKS moduli,
      WireGuard ``PublicKey``, Mapbox ``pk.`` and reCAPTCHA site keys), well-known local default credentials
      in CI service definitions (RabbitMQ ``guest:guest`` on localhost, ``postgres:postgres@localhost`` in a
      test workflow), identifiers that are not credentials (Stripe object ids, AWS resource ids, Xcode and
      Unity GUIDs, Gerrit ``Change-Id``, Vercel project ids).

Provenance: every case is ``own`` (written for this corpus). A few negatives reproduce well-known public
defaults verbatim as they appear in the projects' own sample files: WordPress's ``wp-config-sample.php``
(``put your unique phrase here``, GPL-2.0-or-later), Redis's ``redis.conf`` (``# requirepass foobared``,
BSD-3-Clause) and Laravel's ``.env.example`` (``MAIL_PASSWORD=null``, MIT); those carry that source.
"""

from __future__ import annotations

import hashlib
import json
import random

from secret_corpus import (
    ALNUM,
    B64,
    B64URL,
    DIGITS,
    HEX,
    LOWER,
    PW_SYMBOLS,
    SHELL_SYMBOLS,
    UPPER,
    URL_SYMBOLS,
    Case,
    _clean,
    b64,
    b64url,
    digest_hex,
)
from secret_corpus import draw as _draw
from secret_corpus import password as _password
from secret_corpus import random_bytes as _random_bytes
from secret_corpus import uuid_from as _uuid_from

__all__ = ["holdout", "holdout_negatives", "holdout_positives"]

OWN = "own"
WP = "WordPress wp-config-sample.php (GPL-2.0-or-later), verbatim default"
REDIS = "Redis redis.conf (BSD-3-Clause), verbatim commented default"
LARAVEL = "Laravel .env.example (MIT), verbatim default"

SALT = "holdout:"

# --- deterministic generation (salted, so no value repeats the first corpus's) --------------------------------


def _rng(label: str) -> random.Random:
    return random.Random(hashlib.sha256((SALT + label).encode()).digest())


def draw(label: str, alphabet: str, length: int) -> str:
    return _draw(SALT + label, alphabet, length)


def password(label: str, lo: int = 10, hi: int = 24, symbols: str = PW_SYMBOLS) -> str:
    return _password(SALT + label, lo, hi, symbols)


def random_bytes(label: str, n: int) -> bytes:
    return _random_bytes(SALT + label, n)


def uuid_from(label: str) -> str:
    return _uuid_from(SALT + label)


_WORDS = (
    "harbor",
    "copper",
    "maple",
    "falcon",
    "orbit",
    "lantern",
    "summit",
    "velvet",
    "cobalt",
    "meadow",
    "granite",
    "juniper",
    "saffron",
    "thistle",
    "walnut",
    "quartz",
    "ember",
    "tundra",
    "willow",
    "zephyr",
)


def human_password(label: str) -> str:
    """What people pick: a capitalised word, a number and a symbol (low entropy, no placeholder word)."""
    rng = _rng(label)
    while True:
        value = rng.choice(_WORDS).capitalize() + str(rng.randrange(10, 9999)) + rng.choice("!%*?")
        if _clean(value):
            return value


def simple_password(label: str) -> str:
    """A short lower-case-and-digits password (8 to 12 characters)."""
    rng = _rng(label)
    alphabet = LOWER + DIGITS
    while True:
        value = "".join(rng.choice(alphabet) for _ in range(rng.randint(8, 12)))
        if _clean(value) and any(c in DIGITS for c in value) and any(c in LOWER for c in value):
            return value


def pem_body(label: str, der_prefix: bytes, n: int, sep: str = "\n", indent: str = "") -> str:
    """A PEM body: ``der_prefix`` plus random bytes, base64 in 64-character lines joined by ``sep``."""
    text = b64(der_prefix + random_bytes(label, n))
    return sep.join(indent + text[i : i + 64] for i in range(0, len(text), 64)).removeprefix(indent)


RSA_DER = bytes.fromhex("308204a40201000282010100")  # SEQUENCE, version 0, INTEGER (2048-bit modulus)
PKCS8_DER = bytes.fromhex("308204bd020100300d06092a864886f70d0101010500048204a7")  # PKCS#8, rsaEncryption
EC_DER = bytes.fromhex("30770201010420")  # SEQUENCE, version 1, OCTET STRING (32-byte key)
OPENSSH = b"openssh-key-v1\x00\x00\x00\x00\x04none\x00\x00\x00\x04none\x00\x00\x00\x00\x00\x00\x00\x01"


def jwt_rs256(label: str) -> str:
    header = b64url(
        json.dumps({"alg": "RS256", "kid": draw(label + "kid", B64URL, 43)}, separators=(",", ":")).encode()
    )
    rng = _rng(label)
    claims = {
        "iss": "kubernetes/serviceaccount",
        "kubernetes.io/serviceaccount/namespace": "ci",
        "sub": "system:serviceaccount:ci:deployer",
        "iat": rng.randrange(1_600_000_000, 1_800_000_000),
    }
    payload = b64url(json.dumps(claims, separators=(",", ":")).encode())
    return f"{header}.{payload}.{b64url(random_bytes(label + 'sig', 256))}"


# --- positives --------------------------------------------------------------------------------------------


def _p(shape: str, path: str, text: str, value: str, source: str = OWN, fixed: str = "") -> Case:
    """A positive; ``fixed`` is a part of ``value`` that its format fixes (an OpenSSH key's ``AAAA`` length
    fields, a Firebase server key's ``AAAA``), left out of the placeholder check."""
    if not _clean(value.replace(fixed, "") if fixed else value):
        raise ValueError(f"{shape}: the generated value spells a placeholder word")
    case = Case(shape, True, path, text, value, source)
    case.span()
    return case


def holdout_positives() -> list[Case]:
    out: list[Case] = []
    add = out.append

    # containers -----------------------------------------------------------------------------------------
    v = password("compose-list-1")
    add(
        _p(
            "compose-env-list-password",
            "docker-compose.yml",
            "services:\n  db:\n    image: postgres:16\n    environment:\n      - POSTGRES_USER=orders\n"
            f"      - POSTGRES_PASSWORD={v}\n      - POSTGRES_DB=orders\n",
            v,
        )
    )
    v = human_password("compose-list-2")
    add(
        _p(
            "compose-env-list-quoted-pass",
            "compose.yaml",
            'services:\n  mq:\n    image: rabbitmq:3-management\n    environment:\n      - "RABBITMQ_DEFAULT_USER=shop"\n'
            f'      - "RABBITMQ_DEFAULT_PASS={v}"\n',
            v,
        )
    )
    v = simple_password("compose-map-1")
    add(
        _p(
            "compose-env-map-password",
            "docker-compose.yaml",
            f"  minio:\n    image: minio/minio\n    environment:\n      MINIO_ROOT_USER: minio\n      MINIO_ROOT_PASSWORD: {v}\n",
            v,
        )
    )
    v = password("compose-map-2")
    add(
        _p(
            "compose-env-map-password",
            "monitoring/docker-compose.yml",
            f'  grafana:\n    environment:\n      GF_SECURITY_ADMIN_PASSWORD: "{v}"\n',
            v,
        )
    )
    v = password("compose-requirepass", symbols=SHELL_SYMBOLS)
    add(
        _p(
            "compose-command-requirepass",
            "docker-compose.yml",
            f"  cache:\n    image: redis:7\n    command: redis-server --appendonly yes --requirepass {v}\n",
            v,
        )
    )
    v = human_password("compose-keycloak")
    add(
        _p(
            "compose-env-list-password",
            "infra/compose.yml",
            f"    environment:\n      - KEYCLOAK_ADMIN=admin\n      - KEYCLOAK_ADMIN_PASSWORD={v}\n",
            v,
        )
    )
    v = password("dockerfile-env")
    add(
        _p(
            "dockerfile-env-pass",
            "Dockerfile",
            f'FROM python:3.12-slim\nENV DB_HOST=db DB_USER=app\nENV DB_PASS={v}\nCMD ["gunicorn", "app:app"]\n',
            v,
        )
    )
    v = password("chpasswd", symbols="-_.+")
    add(
        _p(
            "dockerfile-chpasswd",
            "Dockerfile",
            f'RUN useradd -m deploy && echo "deploy:{v}" | chpasswd\n',
            v,
        )
    )

    # kubernetes and helm ---------------------------------------------------------------------------------
    v = password("k8s-dashed")
    add(
        _p(
            "k8s-stringData-dashed-key",
            "k8s/redis-secret.yaml",
            f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: redis\nstringData:\n  redis-password: {v}\n",
            v,
        )
    )
    v = simple_password("k8s-envname")
    add(
        _p(
            "k8s-stringData-env-name",
            "deploy/app-secret.yml",
            f'kind: Secret\napiVersion: v1\nmetadata:\n  name: app-env\nstringData:\n  DB_USER: app\n  DB_PASS: "{v}"\n',
            v,
        )
    )
    v = b64(draw("k8s-apikey", ALNUM, 40).encode())
    add(
        _p(
            "k8s-data-base64-api-key",
            "manifests/secret.yaml",
            f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: billing\ntype: Opaque\ndata:\n  api-key: {v}\n",
            v,
        )
    )
    v = password("k8s-dockerconfig")
    add(
        _p(
            "k8s-dockerconfigjson",
            "k8s/regcred.yaml",
            "apiVersion: v1\nkind: Secret\nmetadata:\n  name: regcred\ntype: kubernetes.io/dockerconfigjson\n"
            f'stringData:\n  .dockerconfigjson: \'{{"auths":{{"registry.corp.io":{{"username":"robot","password":"{v}"}}}}}}\'\n',
            v,
        )
    )
    v = jwt_rs256("kubeconfig-token")
    add(
        _p(
            "kubeconfig-user-token",
            ".kube/config",
            "apiVersion: v1\nkind: Config\nusers:\n- name: deployer\n  user:\n"
            f"    token: {v}\ncurrent-context: prod\n",
            v,
        )
    )
    ec_pem = (
        "-----BEGIN EC PRIVATE KEY-----\n"
        + pem_body("kubeconfig-key", EC_DER, 112)
        + "\n-----END EC PRIVATE KEY-----\n"
    )
    v = b64(ec_pem.encode())
    add(
        _p(
            "kubeconfig-client-key-data",
            "kubeconfig.yaml",
            f"users:\n- name: admin\n  user:\n    client-certificate-data: {b64(b'-----BEGIN CERTIFICATE-----')}\n"
            f"    client-key-data: {v}\n",
            v,
        )
    )
    v = password("helm-root")
    add(
        _p(
            "helm-values-rootPassword",
            "charts/shop/values.yaml",
            f"mariadb:\n  enabled: true\n  auth:\n    rootPassword: {v}\n    database: shop\n",
            v,
        )
    )
    v = password("helm-postgres")
    add(
        _p(
            "helm-values-postgresPassword",
            "values.prod.yaml",
            f'global:\n  postgresql:\n    auth:\n      postgresPassword: "{v}"\n',
            v,
        )
    )
    v = human_password("helm-smtp")
    add(
        _p(
            "helm-values-smtp-pass",
            "helm/values.yaml",
            f"smtp:\n  host: smtp.eu.mailgun.org\n  port: 587\n  user: postmaster@mg.shop.io\n  pass: {v}\n",
            v,
        )
    )
    v = password("helm-set", symbols="-_.")
    add(
        _p(
            "helm-set-cli",
            "scripts/deploy.sh",
            f"helm upgrade --install shop ./charts/shop \\\n  --set postgresql.auth.password={v} \\\n  --namespace shop\n",
            v,
        )
    )
    tls_key = pem_body("helm-tls-key", EC_DER, 112, indent="    ")
    add(
        _p(
            "yaml-indented-pem-key",
            "charts/ingress/values.yaml",
            f"tls:\n  crt: ''\n  key: |\n    -----BEGIN EC PRIVATE KEY-----\n    {tls_key}\n    -----END EC PRIVATE KEY-----\n",
            tls_key,
        )
    )

    # ansible -------------------------------------------------------------------------------------------------
    v = password("ansible-become")
    add(
        _p(
            "ansible-become-pass",
            "group_vars/all.yml",
            f"ansible_user: deploy\nansible_become: true\nansible_become_pass: {v}\n",
            v,
        )
    )
    v = password("ansible-inv", symbols="-_.+")
    add(
        _p(
            "ansible-inventory-password",
            "inventory/hosts.ini",
            f"[web]\nweb1 ansible_host=10.0.1.5 ansible_user=admin ansible_password={v}\n",
            v,
        )
    )
    v = human_password("ansible-ssh-pass")
    add(_p("ansible-ssh-pass", "host_vars/db1.yml", f'ansible_host: 10.0.2.9\nansible_ssh_pass: "{v}"\n', v))
    v = password("ansible-mysql-root")
    add(
        _p(
            "ansible-role-default-password",
            "roles/mysql/defaults/main.yml",
            f"mysql_port: 3306\nmysql_root_password: '{v}'\n",
            v,
        )
    )

    # terraform -----------------------------------------------------------------------------------------------
    v = password("tfvars-admin")
    add(
        _p(
            "tfvars-admin_password",
            "env/prod.tfvars",
            f'location = "westeurope"\nadmin_password = "{v}"\n',
            v,
        )
    )
    v = draw("tfvars-cf", ALNUM + "_-", 40)
    add(_p("tfvars-api-token", "terraform.tfvars", f'cloudflare_api_token = "{v}"\nzone = "shop.io"\n', v))
    v = draw("tf-provider-dd", HEX, 40)
    add(
        _p(
            "tf-provider-block-key",
            "providers.tf",
            f'provider "datadog" {{\n  api_key = var.datadog_api_key\n  app_key = "{v}"\n}}\n',
            v,
        )
    )
    v = draw("tfc-a", ALNUM, 14) + ".atlasv1." + draw("tfc-b", ALNUM, 67)
    add(
        _p(
            "tok-terraform-cloud",
            ".terraformrc",
            f'credentials "app.terraform.io" {{\n  token = "{v}"\n}}\n',
            v,
        )
    )
    v = password("tfstate")
    add(
        _p(
            "tfstate-attribute-password",
            "terraform.tfstate",
            '{"version": 4, "resources": [{"type": "aws_db_instance", "name": "main", "instances": '
            f'[{{"attributes": {{"username": "app", "password": "{v}", "port": 5432}}}}]}}]}}\n',
            v,
        )
    )

    # CI ------------------------------------------------------------------------------------------------------
    v = password("gha-dockerhub")
    add(
        _p(
            "gha-env-literal-password",
            ".github/workflows/build.yml",
            f"jobs:\n  build:\n    runs-on: ubuntu-latest\n    env:\n      DOCKERHUB_USERNAME: corp\n      DOCKERHUB_PASSWORD: {v}\n",
            v,
        )
    )
    v = "dckr_pat_" + draw("dockerhub-pat", B64URL, 27)
    add(
        _p(
            "gha-with-password-dockerhub-pat",
            ".github/workflows/release.yml",
            f"      - uses: docker/login-action@v3\n        with:\n          username: corp\n          password: {v}\n",
            v,
        )
    )
    v = "squ_" + draw("sonar", HEX, 40)
    add(
        _p(
            "tok-sonarqube",
            ".gitlab-ci.yml",
            f"variables:\n  SONAR_HOST_URL: https://sonar.corp.io\n  SONAR_TOKEN: {v}\n",
            v,
        )
    )
    v = uuid_from("codecov")
    add(
        _p(
            "tok-codecov-uuid",
            ".circleci/config.yml",
            f"jobs:\n  test:\n    environment:\n      CODECOV_TOKEN: {v}\n",
            v,
        )
    )
    v = password("jenkins-docker", symbols="-_.")
    add(
        _p(
            "jenkinsfile-docker-login-p",
            "Jenkinsfile",
            f"stage('push') {{\n  steps {{\n    sh 'docker login -u ci -p {v} registry.corp.io'\n  }}\n}}\n",
            v,
        )
    )
    v = "hvs." + draw("vault-gha", ALNUM, 24)
    add(
        _p(
            "tok-vault",
            ".github/workflows/deploy.yml",
            f"    env:\n      VAULT_ADDR: https://vault.corp.io\n      VAULT_TOKEN: {v}\n",
            v,
        )
    )

    # credential files ----------------------------------------------------------------------------------------
    v = password("pgpass-1")
    add(_p("pgpass-line", ".pgpass", f"db.internal:5432:orders:app:{v}\n", v))
    v = human_password("pgpass-2")
    add(
        _p(
            "pgpass-line",
            "home/.pgpass",
            f"# prod\n*:*:*:postgres:{v}\nlocalhost:5432:*:app:{password('pgpass-3')}\n",
            v,
        )
    )
    v = password("pipconf", symbols=URL_SYMBOLS)
    add(
        _p(
            "pip-conf-index-url-credentials",
            "pip.conf",
            f"[global]\nindex-url = https://ci:{v}@nexus.corp.io/repository/pypi/simple\ntrusted-host = nexus.corp.io\n",
            v,
        )
    )
    v = password("pypirc-private")
    add(
        _p(
            "pypirc-private-repo",
            ".pypirc",
            "[distutils]\nindex-servers =\n    corp\n\n[corp]\nrepository = https://nexus.corp.io/repository/pypi-internal/\n"
            f"username = deploy\npassword = {v}\n",
            v,
        )
    )
    v = human_password("maven-passphrase")
    add(
        _p(
            "maven-settings-passphrase",
            ".m2/settings.xml",
            f"<settings>\n  <servers>\n    <server>\n      <id>gpg.passphrase</id>\n      <passphrase>{v}</passphrase>\n"
            "    </server>\n  </servers>\n</settings>\n",
            v,
        )
    )
    v = password("maven-oneline")
    add(
        _p(
            "maven-settings-server-oneline",
            "ci/settings.xml",
            f"<servers><server><id>nexus</id><username>admin</username><password>{v}</password></server></servers>\n",
            v,
        )
    )
    v = password("ossrh")
    add(_p("gradle-ossrhPassword", "gradle.properties", f"ossrhUsername=corp\nossrhPassword={v}\n", v))
    v = password("gradle-store")
    add(
        _p(
            "gradle-release-store-password",
            "android/gradle.properties",
            f"RELEASE_STORE_FILE=release.jks\nRELEASE_STORE_PASSWORD={v}\nRELEASE_KEY_ALIAS=upload\n",
            v,
        )
    )
    v = password("gradle-proxy")
    add(
        _p(
            "gradle-proxyPassword",
            "gradle.properties",
            f"systemProp.https.proxyHost=proxy.corp.io\nsystemProp.https.proxyUser=jdoe\nsystemProp.https.proxyPassword={v}\n",
            v,
        )
    )
    v = password("gradle-signing-config")
    add(
        _p(
            "build-gradle-storePassword",
            "app/build.gradle",
            'android {\n    signingConfigs {\n        release {\n            storeFile file("release.jks")\n'
            f'            storePassword "{v}"\n            keyAlias "upload"\n        }}\n    }}\n}}\n',
            v,
        )
    )
    v = password("gradle-kts")
    add(
        _p(
            "gradle-kts-credentials",
            "build.gradle.kts",
            'repositories {\n    maven {\n        url = uri("https://nexus.corp.io/repository/maven/")\n'
            f'        credentials {{\n            username = "deploy"\n            password = "{v}"\n        }}\n    }}\n}}\n',
            v,
        )
    )
    v = password("git-credentials", symbols=URL_SYMBOLS)
    add(_p("git-credentials-file", ".git-credentials", f"https://alice:{v}@git.corp.io\n", v))
    v = "cio" + draw("crates", ALNUM, 32)
    add(_p("tok-crates-io", ".cargo/credentials.toml", f'[registry]\ntoken = "{v}"\n', v))
    v = "rubygems_" + draw("rubygems", HEX, 48)
    add(_p("tok-rubygems", ".gem/credentials", f"---\n:rubygems_api_key: {v}\n", v))
    v = "dapi" + draw("databricks", HEX, 32)
    add(
        _p(
            "tok-databricks",
            ".databrickscfg",
            f"[DEFAULT]\nhost = https://adb-4091273650.12.azuredatabricks.net\ntoken = {v}\n",
            v,
        )
    )
    v = draw("s3cfg", B64, 43)
    add(
        _p(
            "s3cfg-secret_key",
            ".s3cfg",
            f"[default]\naccess_key = DO00{draw('s3cfg-id', UPPER + DIGITS, 16)}\nhost_base = ams3.digitaloceanspaces.com\nsecret_key = {v}\n",
            v,
        )
    )
    v = "hvs." + draw("vault-file", ALNUM + "_-", 91)
    add(_p("tok-vault", ".vault-token", f"{v}\n", v))
    v = password("fstab", symbols="-_.+")
    add(
        _p(
            "fstab-cifs-password",
            "etc/fstab",
            f"UUID={uuid_from('fstab-uuid')} / ext4 defaults 0 1\n//nas.corp.io/backup /mnt/backup cifs username=backup,password={v},uid=1000 0 0\n",
            v,
        )
    )
    v = human_password("wpa")
    add(
        _p(
            "wpa-supplicant-psk",
            "boot/wpa_supplicant.conf",
            f'country=DE\nnetwork={{\n    ssid="CorpWifi"\n    psk="{v}"\n    key_mgmt=WPA-PSK\n}}\n',
            v,
        )
    )
    v = password("sssd")
    add(
        _p(
            "sssd-ldap-authtok",
            "etc/sssd/sssd.conf",
            f"[domain/corp]\nldap_uri = ldaps://ldap.corp.io\nldap_default_bind_dn = cn=sssd,dc=corp,dc=io\nldap_default_authtok = {v}\n",
            v,
        )
    )
    v = draw("yarnrc", B64URL, 40)
    add(
        _p(
            "yarnrc-npmAuthToken",
            ".yarnrc.yml",
            f'npmScopes:\n  corp:\n    npmRegistryServer: "https://npm.corp.io"\n    npmAuthToken: {v}\n',
            v,
        )
    )
    v = draw("composer-auth", HEX, 40)
    add(
        _p(
            "composer-auth-json",
            "auth.json",
            f'{{\n    "http-basic": {{\n        "repo.packagist.com": {{\n            "username": "corp",\n            "password": "{v}"\n        }}\n    }}\n}}\n',
            v,
        )
    )

    # framework settings --------------------------------------------------------------------------------------
    v = password("wp-db")
    add(
        _p(
            "wp-config-spaced-define",
            "wp-config.php",
            f"<?php\ndefine( 'DB_NAME', 'shop' );\ndefine( 'DB_USER', 'shop' );\ndefine( 'DB_PASSWORD', '{v}' );\n",
            v,
        )
    )
    v = draw("wp-salt", ALNUM + "!@#%^&*()-_[]{}<>~+=,.;:/?|", 64)
    add(
        _p(
            "wp-config-auth-salt",
            "wp-config.php",
            f"define( 'AUTH_KEY',         '{v}' );\n",
            v,
        )
    )
    v = b64(random_bytes("laravel-app-key", 32))
    add(
        _p(
            "laravel-app-key",
            ".env",
            f"APP_NAME=Shop\nAPP_ENV=production\nAPP_KEY=base64:{v}\nAPP_DEBUG=false\n",
            v,
        )
    )
    v = password("laravel-db")
    add(
        _p(
            "laravel-db-password",
            "shop/.env",
            f"DB_CONNECTION=mysql\nDB_HOST=127.0.0.1\nDB_PORT=3306\nDB_DATABASE=shop\nDB_USERNAME=shop\nDB_PASSWORD={v}\n",
            v,
        )
    )
    v = (
        draw("mailgun-new-a", HEX, 32)
        + "-"
        + draw("mailgun-new-b", HEX, 8)
        + "-"
        + draw("mailgun-new-c", HEX, 8)
    )
    add(
        _p(
            "laravel-mail-password-mailgun",
            ".env",
            f"MAIL_MAILER=smtp\nMAIL_HOST=smtp.mailgun.org\nMAIL_USERNAME=postmaster@mg.shop.io\nMAIL_PASSWORD={v}\n",
            v,
        )
    )
    v = password("rails-db")
    add(
        _p(
            "rails-database-yml",
            "config/database.yml",
            f"production:\n  <<: *default\n  database: shop_production\n  username: shop\n  password: {v}\n",
            v,
        )
    )
    v = draw("rails-master", HEX, 32)
    add(_p("rails-master-key-file", "config/master.key", f"{v}\n", v))
    v = password("django-db")
    add(
        _p(
            "django-databases-dict",
            "shop/settings/production.py",
            "DATABASES = {\n    'default': {\n        'ENGINE': 'django.db.backends.postgresql',\n"
            f"        'NAME': 'shop',\n        'USER': 'shop',\n        'PASSWORD': '{v}',\n        'HOST': 'db',\n    }}\n}}\n",
            v,
        )
    )
    v = draw("django-email", LOWER, 16)
    add(
        _p(
            "django-email-host-password",
            "settings.py",
            f'EMAIL_HOST = "smtp.gmail.com"\nEMAIL_HOST_USER = "alerts@corp.io"\nEMAIL_HOST_PASSWORD = "{v}"\n',
            v,
        )
    )
    v = password("spring-mail")
    add(
        _p(
            "spring-yaml-mail-password",
            "src/main/resources/application-prod.yml",
            f"spring:\n  mail:\n    host: smtp.corp.io\n    username: alerts\n    password: {v}\n",
            v,
        )
    )

    # connection URLs and strings -----------------------------------------------------------------------------
    v = password("sqla-mysql", symbols=URL_SYMBOLS)
    add(
        _p(
            "sqlalchemy-mysql-pymysql",
            "app/db.py",
            f'engine = create_engine("mysql+pymysql://shop:{v}@db.internal:3306/shop")\n',
            v,
        )
    )
    v = password("sqla-mssql", symbols=URL_SYMBOLS)
    add(
        _p(
            "sqlalchemy-mssql-pyodbc",
            "config.py",
            f'SQLALCHEMY_DATABASE_URI = "mssql+pyodbc://sa:{v}@sqlserver/shop?driver=ODBC+Driver+18+for+SQL+Server"\n',
            v,
        )
    )
    v = password("jdbc-param", symbols="-_.~")
    add(
        _p(
            "jdbc-url-password-param",
            "src/main/resources/application.properties",
            f"spring.datasource.url=jdbc:mysql://db:3306/shop?user=shop&password={v}&useSSL=true\n",
            v,
        )
    )
    v = password("jdbc-sqlserver")
    add(
        _p(
            "jdbc-sqlserver-semicolon",
            "src/main/java/corp/Db.java",
            f'String url = "jdbc:sqlserver://sql.corp.io:1433;databaseName=shop;user=sa;password={v};encrypt=true";\n',
            v,
        )
    )
    v = password("jdbc-oracle", symbols="_")
    add(
        _p(
            "jdbc-oracle-thin-user-slash-password",
            "conf/datasource.properties",
            f"db.url=jdbc:oracle:thin:scott/{v}@db.corp.io:1521/ORCL\n",
            v,
        )
    )
    v = password("csharp-json")
    add(
        _p(
            "csharp-connstring-appsettings",
            "appsettings.Production.json",
            '{\n  "ConnectionStrings": {\n    "Default": "Server=sql.corp.io;Database=Shop;User Id=shop;'
            f'Password={v};TrustServerCertificate=True"\n  }}\n}}\n',
            v,
        )
    )
    v = password("csharp-pwd")
    add(
        _p(
            "csharp-connstring-pwd",
            "Data/ShopContext.cs",
            f'var cs = "Data Source=10.0.0.4;Initial Catalog=Shop;User ID=sa;Pwd={v};";\n',
            v,
        )
    )
    v = password("http-proxy", symbols=URL_SYMBOLS)
    add(
        _p(
            "url-http-proxy-credentials",
            "etc/environment",
            f"http_proxy=http://jdoe:{v}@proxy.corp.io:3128\n",
            v,
        )
    )
    v = password("smtp-url", symbols=URL_SYMBOLS)
    add(_p("url-smtp-credentials", ".env", f"EMAIL_URL=smtp+tls://alerts:{v}@smtp.corp.io:587\n", v))
    v = password("go-dsn")
    add(
        _p(
            "go-mysql-dsn",
            "cmd/server/main.go",
            f'db, err := sql.Open("mysql", "shop:{v}@tcp(db.internal:3306)/shop?parseTime=true")\n',
            v,
        )
    )
    sig_raw = b64(random_bytes("azure-sas", 32))
    v = sig_raw.replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")
    add(
        _p(
            "tok-azure-sas-sig",
            ".env",
            "EXPORT_SAS_URL=https://shopdata.blob.core.windows.net/exports?sv=2022-11-02&ss=b&srt=co&sp=rl"
            f"&se=2026-01-01T00:00:00Z&st=2024-01-01T00:00:00Z&spr=https&sig={v}\n",
            v,
        )
    )

    # code ----------------------------------------------------------------------------------------------------
    v = password("requests-auth")
    add(
        _p(
            "py-requests-auth-tuple",
            "reports/fetch.py",
            f'r = requests.get(f"{{BASE}}/api/reports", auth=("svc-report", "{v}"), timeout=10)\n',
            v,
        )
    )
    v = password("httpbasicauth")
    add(_p("py-HTTPBasicAuth", "jira_sync.py", f'auth = HTTPBasicAuth("admin", "{v}")\n', v))
    v = password("aiohttp-basic")
    add(_p("py-aiohttp-BasicAuth-positional", "crawler.py", f'auth = aiohttp.BasicAuth("bot", "{v}")\n', v))
    v = draw("smtplib", LOWER, 16)
    add(
        _p(
            "py-smtplib-login",
            "notify.py",
            f'server = smtplib.SMTP_SSL("smtp.gmail.com", 465)\nserver.login("alerts@corp.io", "{v}")\n',
            v,
        )
    )
    v = password("psycopg")
    add(
        _p(
            "py-psycopg2-connect-kwarg",
            "etl/load.py",
            f'conn = psycopg2.connect(host="db", dbname="shop", user="shop", password="{v}")\n',
            v,
        )
    )
    v = password("pymysql")
    add(
        _p(
            "py-pymysql-passwd-kwarg",
            "etl/mysql.py",
            f"conn = pymysql.connect(host='db', user='root', passwd='{v}', db='shop')\n",
            v,
        )
    )
    nb_key = draw("notebook", HEX, 32)
    add(
        _p(
            "ipynb-escaped-api-key",
            "notebooks/explore.ipynb",
            '{\n "cells": [\n  {\n   "cell_type": "code",\n   "metadata": {},\n   "source": [\n'
            f'    "import weather\\n",\n    "api_key = \\"{nb_key}\\"\\n"\n   ]\n  }}\n ]\n}}\n',
            nb_key,
        )
    )
    v = password("java-setpassword")
    add(
        _p(
            "java-setPassword",
            "src/main/java/corp/DataSourceConfig.java",
            f'HikariDataSource ds = new HikariDataSource();\nds.setUsername("shop");\nds.setPassword("{v}");\n',
            v,
        )
    )
    v = draw("java-pwauth", LOWER, 16)
    add(
        _p(
            "java-PasswordAuthentication",
            "src/main/java/corp/Mailer.java",
            f'return new PasswordAuthentication("alerts@corp.io", "{v}".toCharArray());\n',
            v,
        )
    )
    v = password("java-props")
    add(
        _p(
            "java-props-put-password",
            "src/main/java/corp/Mail.java",
            f'props.put("mail.smtp.password", "{v}");\n',
            v,
        )
    )
    v = password("csharp-netcred")
    add(
        _p(
            "csharp-NetworkCredential",
            "Services/FtpClient.cs",
            f'request.Credentials = new NetworkCredential("upload", "{v}");\n',
            v,
        )
    )
    v = password("ps-securestring")
    add(
        _p(
            "ps-ConvertTo-SecureString",
            "deploy.ps1",
            f'$pw = ConvertTo-SecureString "{v}" -AsPlainText -Force\n$cred = New-Object PSCredential ("CORP\\svc", $pw)\n',
            v,
        )
    )
    v = human_password("ps-var")
    add(
        _p(
            "ps-password-variable",
            "scripts/Join-Domain.ps1",
            f"$User = 'CORP\\joiner'\n$Password = '{v}'\n",
            v,
        )
    )
    v = password("php-pdo")
    add(
        _p(
            "php-pdo-positional",
            "src/db.php",
            f"<?php\n$pdo = new PDO('mysql:host=db;dbname=shop', 'shop', '{v}');\n",
            v,
        )
    )
    v = human_password("php-mysqli")
    add(
        _p(
            "php-mysqli-connect-positional",
            "includes/connect.php",
            f'<?php\n$conn = mysqli_connect("localhost", "root", "{v}", "shop");\n',
            v,
        )
    )
    v = password("go-redis")
    add(
        _p(
            "go-redis-options-password",
            "internal/cache/cache.go",
            f'rdb := redis.NewClient(&redis.Options{{Addr: "cache:6379", Password: "{v}", DB: 0}})\n',
            v,
        )
    )
    v = draw("nodemailer", LOWER, 16)
    add(
        _p(
            "js-nodemailer-auth-pass",
            "src/mail.js",
            f"const transporter = nodemailer.createTransport({{\n  service: 'gmail',\n  auth: {{ user: 'alerts@corp.io', pass: '{v}' }},\n}});\n",
            v,
        )
    )
    v = password("ruby-smtp")
    add(
        _p(
            "ruby-smtp-settings-password",
            "config/environments/production.rb",
            f'config.action_mailer.smtp_settings = {{\n  address: "smtp.corp.io",\n  user_name: "alerts",\n  password: "{v}"\n}}\n',
            v,
        )
    )

    # command lines -------------------------------------------------------------------------------------------
    v = password("git-clone", symbols=URL_SYMBOLS)
    add(
        _p(
            "git-clone-credentials-url",
            "scripts/bootstrap.sh",
            f"git clone https://deploy:{v}@git.corp.io/ops/infra.git /opt/infra\n",
            v,
        )
    )
    v = "ghs_" + draw("ghs", ALNUM, 36)
    add(
        _p(
            "git-remote-x-access-token",
            "ci/push.sh",
            f"git remote set-url origin https://x-access-token:{v}@github.com/corp/app.git\n",
            v,
        )
    )
    v = password("expect")
    add(
        _p(
            "expect-send-password",
            "scripts/login.exp",
            f'#!/usr/bin/expect -f\nspawn ssh admin@10.0.0.9\nexpect "password:"\nsend "{v}\\r"\ninteract\n',
            v,
        )
    )
    v = password("sshpass-glued", symbols="-_.+")
    add(
        _p(
            "sshpass-p-glued",
            "sync.sh",
            f'sshpass -p"{v}" rsync -av ./dist/ deploy@10.0.4.2:/srv/www/\n',
            v,
        )
    )
    v = password("redis-conf")
    add(_p("redis-conf-requirepass", "redis.conf", f"bind 0.0.0.0\nport 6379\nrequirepass {v}\n", v))
    v = password("redis-cli", symbols="-_.+")
    add(_p("redis-cli-a", "scripts/flush.sh", f"redis-cli -h cache.internal -a {v} FLUSHDB\n", v))
    v = password("mongodump", symbols="-_.+")
    add(
        _p(
            "mongodump-password",
            "backup/mongo.sh",
            f"mongodump --host db.internal --username backup --password {v} --out /backups/$(date +%F)\n",
            v,
        )
    )
    v = password("mongosh")
    add(
        _p(
            "mongosh-p-quoted",
            "README.md",
            f"```\nmongosh \"mongodb://db.internal:27017\" -u admin -p '{v}' --authenticationDatabase admin\n```\n",
            v,
        )
    )
    v = password("openssl", symbols="-_.+")
    add(
        _p(
            "openssl-passout-pass",
            "scripts/bundle.sh",
            f"openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:{v}\n",
            v,
        )
    )
    v = password("keytool", symbols="-_.+")
    add(
        _p(
            "keytool-storepass",
            "scripts/keystore.sh",
            f"keytool -importkeystore -srckeystore in.p12 -srcstoretype PKCS12 -destkeystore app.jks -deststorepass {v}\n",
            v,
        )
    )
    v = password("htpasswd", symbols="-_.+")
    add(_p("htpasswd-b", "provision.sh", f"htpasswd -bc /etc/nginx/.htpasswd admin {v}\n", v))

    # env files with assorted names ---------------------------------------------------------------------------
    v = draw("jwt-secret", ALNUM, 48)
    add(_p("env-JWT_SECRET", ".env", f"PORT=3000\nJWT_SECRET={v}\nJWT_EXPIRES_IN=1d\n", v))
    v = b64(random_bytes("nextauth", 32))
    add(_p("env-NEXTAUTH_SECRET", ".env.local", f"NEXTAUTH_URL=https://shop.io\nNEXTAUTH_SECRET={v}\n", v))
    v = draw("encryption-key", HEX, 64)
    add(_p("env-ENCRYPTION_KEY", "api/.env", f"ENCRYPTION_KEY={v}\n", v))
    v = password("db-pass")
    add(_p("env-DB_PASS", ".env", f"DB_HOST=localhost\nDB_USER=shop\nDB_PASS={v}\n", v))
    v = draw("smtp-pass", LOWER, 16)
    add(_p("env-SMTP_PASS", "mailer/.env", f"SMTP_USER=alerts@corp.io\nSMTP_PASS={v}\n", v))
    v = draw("consumer-secret", ALNUM, 50)
    add(
        _p(
            "env-CONSUMER_SECRET",
            ".env",
            f"TWITTER_CONSUMER_KEY={draw('consumer-key', ALNUM, 25)}\nTWITTER_CONSUMER_SECRET={v}\n",
            v,
        )
    )
    v = draw("json-pass", ALNUM, 14)
    add(
        _p(
            "json-pass-key",
            "config/production.json",
            f'{{"db": {{"host": "db", "user": "shop", "pass": "{v}"}}}}\n',
            v,
        )
    )
    v = password("toml-passwd")
    add(
        _p(
            "toml-passwd-key",
            "config.toml",
            f'[smtp]\nhost = "smtp.corp.io"\nuser = "alerts"\npasswd = "{v}"\n',
            v,
        )
    )
    v = human_password("yaml-passphrase")
    add(_p("yaml-passphrase", "release.yml", f"gpg:\n  key_id: 24875D73\n  passphrase: {v}\n", v))

    # private keys ------------------------------------------------------------------------------------------
    v = pem_body("rsa-key", RSA_DER, 1180)
    add(
        _p(
            "pem-rsa-private-key",
            "deploy/id_rsa",
            f"-----BEGIN RSA PRIVATE KEY-----\n{v}\n-----END RSA PRIVATE KEY-----\n",
            v,
        )
    )
    v = pem_body("openssh-key", OPENSSH, 330, sep="\n")
    v = "\n".join(v.replace("\n", "")[i : i + 70] for i in range(0, len(v.replace("\n", "")), 70))
    add(
        _p(
            "pem-openssh-private-key",
            ".ssh/id_ed25519",
            f"-----BEGIN OPENSSH PRIVATE KEY-----\n{v}\n-----END OPENSSH PRIVATE KEY-----\n",
            v,
            fixed=b64(OPENSSH[:36]),
        )
    )
    v = pem_body("gcp-sa", PKCS8_DER, 1180, sep="\\n")
    add(
        _p(
            "gcp-service-account-json",
            "gcp-sa.json",
            '{\n  "type": "service_account",\n  "project_id": "shop-prod",\n'
            f'  "private_key_id": "{draw("gcp-kid", HEX, 40)}",\n'
            f'  "private_key": "-----BEGIN PRIVATE KEY-----\\n{v}\\n-----END PRIVATE KEY-----\\n",\n'
            '  "client_email": "deployer@shop-prod.iam.gserviceaccount.com"\n}\n',
            v,
        )
    )
    v = "GOCSPX-" + draw("google-oauth", B64URL, 28)
    add(
        _p(
            "tok-google-oauth-client-secret",
            "client_secret.json",
            '{"installed": {"client_id": "4817236590-q8v1ab2cd3ef.apps.googleusercontent.com", '
            f'"project_id": "shop-prod", "client_secret": "{v}", "redirect_uris": ["http://localhost"]}}}}\n',
            v,
        )
    )

    # provider tokens -----------------------------------------------------------------------------------------
    v = "dop_v1_" + draw("do-1", HEX, 64)
    add(_p("tok-digitalocean", ".env", f"DIGITALOCEAN_ACCESS_TOKEN={v}\n", v))
    v = "dop_v1_" + draw("do-2", HEX, 64)
    add(_p("tok-digitalocean", "infra/main.tf", f'provider "digitalocean" {{\n  token = "{v}"\n}}\n', v))
    v = "shpat_" + draw("shopify-1", HEX, 32)
    add(
        _p(
            "tok-shopify",
            "sync/shopify_client.py",
            f'session = shopify.Session("shop-io.myshopify.com", "2024-01", "{v}")\n',
            v,
        )
    )
    v = "shpss_" + draw("shopify-2", HEX, 32)
    add(
        _p(
            "tok-shopify",
            ".env",
            f"SHOPIFY_API_KEY={draw('shopify-key', HEX, 32)}\nSHOPIFY_SHARED_SECRET={v}\n",
            v,
        )
    )
    v = "glsa_" + draw("grafana-1a", ALNUM, 32) + "_" + draw("grafana-1b", HEX, 8)
    add(
        _p(
            "tok-grafana-service-account",
            "grafana/provisioning.sh",
            f'curl -H "Authorization: Bearer {v}" https://grafana.corp.io/api/dashboards/db\n',
            v,
        )
    )
    rng = _rng("grafana-cloud")
    glc = {
        "o": str(rng.randrange(10**5, 10**6)),
        "n": "stack-ci-write",
        "k": draw("grafana-2", ALNUM, 24),
        "m": {"r": "eu"},
    }
    v = "glc_" + b64(json.dumps(glc, separators=(",", ":")).encode())
    add(
        _p(
            "tok-grafana-cloud",
            "alloy/config.alloy",
            f'basic_auth {{\n  username = "812345"\n  password = "{v}"\n}}\n',
            v,
        )
    )
    v = "dp.pt." + draw("doppler-1", ALNUM, 43)
    add(_p("tok-doppler", "scripts/run.sh", f"export DOPPLER_TOKEN={v}\ndoppler run -- npm start\n", v))
    v = "dp.st.prd." + draw("doppler-2", ALNUM, 40)
    add(_p("tok-doppler", "Dockerfile", f"ENV DOPPLER_TOKEN={v}\n", v))
    v = "lin_api_" + draw("linear", ALNUM, 40)
    add(_p("tok-linear", "scripts/triage.ts", f'const linear = new LinearClient({{ apiKey: "{v}" }});\n', v))
    v = "PMAK-" + draw("postman-a", HEX, 24) + "-" + draw("postman-b", HEX, 34)
    add(
        _p(
            "tok-postman",
            "newman.sh",
            f'newman run "https://api.getpostman.com/collections/1234?apikey={v}"\n',
            v,
        )
    )
    v = "key-" + draw("mailgun-legacy", HEX, 32)
    add(
        _p("tok-mailgun-legacy", "mail.py", f'requests.post(MAILGUN_URL, auth=("api", "{v}"), data=msg)\n', v)
    )
    v = draw("mailchimp", HEX, 32) + "-us" + str(_rng("mailchimp-dc").randrange(1, 22))
    add(_p("tok-mailchimp", "newsletter/config.php", f"<?php\n$MailChimp = new MailChimp('{v}');\n", v))
    v = uuid_from("heroku-uuid")
    add(_p("tok-heroku-uuid", ".github/workflows/heroku.yml", f"    env:\n      HEROKU_API_KEY: {v}\n", v))
    v = "HRKU-AA" + draw("heroku-v2", ALNUM + "_-", 58)
    add(_p("tok-heroku-v2", ".netrc", f"machine api.heroku.com\n  login ops@corp.io\n  password {v}\n", v))
    v = "ATATT3xFfGF0" + draw("atlassian-a", B64URL, 170) + "=" + draw("atlassian-b", "0123456789ABCDEF", 8)
    add(
        _p(
            "tok-atlassian",
            "jira.py",
            f'jira = JIRA(server="https://corp.atlassian.net", basic_auth=("ops@corp.io", "{v}"))\n',
            v,
        )
    )
    v = "glrt-" + draw("glrt", ALNUM + "_-", 20)
    add(
        _p(
            "tok-gitlab-runner",
            "etc/gitlab-runner/config.toml",
            f'[[runners]]\n  name = "docker-1"\n  url = "https://gitlab.corp.io"\n  token = "{v}"\n  executor = "docker"\n',
            v,
        )
    )
    v = f"xapp-1-A{draw('xapp-a', UPPER + DIGITS, 10)}-{draw('xapp-b', DIGITS, 13)}-{draw('xapp-c', HEX, 64)}"
    add(_p("tok-slack-app", "bot/app.py", f'handler = SocketModeHandler(app, "{v}")\n', v))
    v = f"xoxp-{draw('xoxp-a', DIGITS, 12)}-{draw('xoxp-b', DIGITS, 12)}-{draw('xoxp-c', DIGITS, 13)}-{draw('xoxp-d', HEX, 32)}"
    add(_p("tok-slack-user", "tools/cleanup.py", f'client = WebClient("{v}")\n', v))
    v = draw("sentry-key", HEX, 32)
    add(
        _p(
            "tok-sentry-dsn-key",
            "src/sentry.ts",
            f'Sentry.init({{ dsn: "https://{v}@o{draw("sentry-org", DIGITS, 6)}.ingest.sentry.io/{draw("sentry-proj", DIGITS, 7)}" }});\n',
            v,
        )
    )
    v = draw("sentry-legacy-secret", HEX, 32)
    add(
        _p(
            "tok-sentry-dsn-legacy-secret",
            "settings.py",
            f'RAVEN_CONFIG = {{"dsn": "https://{draw("sentry-legacy-pub", HEX, 32)}:{v}@sentry.io/{draw("sentry-legacy-proj", DIGITS, 6)}"}}\n',
            v,
        )
    )
    v = "sntryu_" + draw("sentry-user", HEX, 64)
    add(_p("tok-sentry-user-auth", ".sentryclirc", f"[auth]\ntoken={v}\n", v))
    v = "AAAA" + draw("fcm-a", ALNUM + "_-", 7) + ":APA91b" + draw("fcm-b", B64URL, 134)
    add(
        _p(
            "tok-firebase-fcm-server-key",
            "push/send.js",
            f"const headers = {{ Authorization: 'key={v}' }};\n",
            v,
            fixed="AAAA",
        )
    )
    v = draw("twitch-oauth", LOWER + DIGITS, 30)
    add(
        _p(
            "tok-twitch-irc-oauth",
            "bot/config.json",
            f'{{"nick": "shopbot", "pass": "oauth:{v}", "channel": "#shop"}}\n',
            v,
        )
    )
    v = draw("twitch-secret", LOWER + DIGITS, 30)
    add(
        _p(
            "tok-twitch-client-secret",
            ".env",
            f"TWITCH_CLIENT_ID={draw('twitch-id', LOWER + DIGITS, 30)}\nTWITCH_CLIENT_SECRET={v}\n",
            v,
        )
    )
    v = "sl." + draw("dropbox", B64URL, 138)
    add(_p("tok-dropbox-short-lived", "backup.py", f'dbx = dropbox.Dropbox("{v}")\n', v))
    v = "NRAK-" + draw("newrelic", UPPER + DIGITS, 27)
    add(
        _p(
            "tok-newrelic-user-key",
            "newrelic.tf",
            f'provider "newrelic" {{\n  account_id = 3012345\n  api_key    = "{v}"\n}}\n',
            v,
        )
    )
    v = "pul-" + draw("pulumi", HEX, 40)
    add(_p("tok-pulumi", ".github/workflows/infra.yml", f"env:\n  PULUMI_ACCESS_TOKEN: {v}\n", v))
    v = "sbp_" + draw("supabase", HEX, 40)
    add(_p("tok-supabase-access", "scripts/migrate.sh", f"SUPABASE_ACCESS_TOKEN={v} supabase db push\n", v))
    v = "pscale_pw_" + draw("planetscale", ALNUM + "_-", 43)
    add(
        _p(
            "tok-planetscale-password",
            "prisma/.env",
            f'DATABASE_URL="mysql://{draw("pscale-user", LOWER + DIGITS, 12)}:{v}@aws.connect.psdb.cloud/shop?sslaccept=strict"\n',
            v,
        )
    )
    v = "xkeysib-" + draw("brevo-a", HEX, 64) + "-" + draw("brevo-b", ALNUM, 16)
    add(
        _p(
            "tok-brevo",
            "src/mailer.php",
            f"<?php\n$config = Configuration::getDefaultConfiguration()->setApiKey('api-key', '{v}');\n",
            v,
        )
    )
    v = "ntn_" + draw("notion-a", DIGITS, 11) + draw("notion-b", ALNUM, 35)
    add(_p("tok-notion", "sync_notion.py", f'notion = Client(auth="{v}")\n', v))
    v = "figd_" + draw("figma", B64URL, 40)
    add(_p("tok-figma", "scripts/export-icons.js", f"const FIGMA = '{v}';\n", v))
    v = "CFPAT-" + draw("contentful", B64URL, 43)
    add(
        _p(
            "tok-contentful-pat",
            "package.json",
            f'{{"scripts": {{"migrate": "contentful space migration --management-token {v} m.js"}}}}\n',
            v,
        )
    )
    mapbox_payload = b64url(
        json.dumps(
            {"u": "shopmaps", "a": draw("mapbox-a", LOWER + DIGITS, 25)}, separators=(",", ":")
        ).encode()
    )
    v = f"sk.{mapbox_payload}.{draw('mapbox-sig', B64URL, 22)}"
    add(_p("tok-mapbox-secret", "scripts/upload_tiles.sh", f"export MAPBOX_ACCESS_TOKEN={v}\n", v))
    v = "gsk_" + draw("groq", ALNUM, 52)
    add(_p("tok-groq", "llm.py", f'client = Groq(api_key="{v}")\n', v))
    v = "r8_" + draw("replicate", ALNUM, 37)
    add(
        _p(
            "tok-replicate",
            "README.md",
            f"```sh\nexport REPLICATE_API_TOKEN={v}\npython predict.py\n```\n",
            v,
        )
    )
    discord_id = str(_rng("discord-id").randrange(10**17, 10**18 * 2))
    v = f"{b64url(discord_id.encode())}.{draw('discord-b', B64URL, 6)}.{draw('discord-c', B64URL, 38)}"
    add(_p("tok-discord-bot", "bot.js", f"client.login('{v}');\n", v))
    v = "00" + draw("okta", ALNUM + "_-", 40)
    add(
        _p(
            "tok-okta-api",
            "okta.yaml",
            f"okta:\n  client:\n    orgUrl: https://corp.okta.com\n    token: {v}\n",
            v,
        )
    )
    v = draw("ado-pat", "abcdefghijklmnopqrstuvwxyz234567", 52)
    add(
        _p(
            "tok-azure-devops-pat",
            "azure-pipelines/setup.sh",
            f"echo {v} | az devops login --organization https://dev.azure.com/corp\n",
            v,
        )
    )
    v = "nfp_" + draw("netlify", ALNUM, 36)
    add(_p("tok-netlify", "netlify-deploy.sh", f"netlify deploy --prod --auth {v} --dir dist\n", v))
    v = "bkua_" + draw("buildkite", HEX, 40)
    add(_p("tok-buildkite", "tools/bk.py", f'BUILDKITE_API_TOKEN = "{v}"\n', v))
    v = (
        "IQoJb3JpZ2luX2VjE"
        + draw("sts-a", ALNUM, 2)
        + "//////////wEaCXVzLWVhc3QtMSJHMEUCI"
        + draw("sts-b", B64, 560)
    )
    add(
        _p(
            "tok-aws-session-token",
            ".aws/credentials",
            f"[temp]\naws_access_key_id = ASIA{draw('sts-id', 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)}\n"
            f"aws_secret_access_key = {draw('sts-secret', ALNUM + '+/', 40)}\naws_session_token = {v}\n",
            v,
        )
    )
    v = "FwoGZXIvYXdzE" + draw("sts-old", B64, 300)
    add(_p("tok-aws-session-token", "scripts/assume.sh", f"export AWS_SESSION_TOKEN={v}\n", v))

    # written before the rules for glued tokens, Kotlin/C#/PowerShell forms and lists ---------------------
    v = "ghp_" + draw("glued-gh", ALNUM, 36)
    add(_p("glued-github-token", "notes/deploy.txt", f"cloned with token{v} yesterday\n", v))
    v = (
        "xoxb-"
        + draw("glued-slack-a", DIGITS, 11)
        + "-"
        + draw("glued-slack-b", DIGITS, 13)
        + "-"
        + draw("glued-slack-c", ALNUM, 24)
    )
    add(_p("glued-slack-token", "chat.log", f"[12:03] bob: here is the bot{v}\n", v))
    v = "sk_live_" + draw("glued-stripe", ALNUM, 24)
    add(_p("glued-stripe-key", "docs/billing.md", f"Use key{v} for production.\n", v))
    v = "glpat-" + draw("glued-gitlab", ALNUM, 20)
    add(_p("glued-gitlab-token", "ci.env.txt", f"GITLAB{v}\n", v))
    v = password("kotlin-bearer", symbols="")
    add(
        _p(
            "kotlin-mapof-bearer",
            "app/src/main/kotlin/Api.kt",
            f'val headers = mapOf("Accept" to "application/json", "Authorization" to "Bearer {v}")\n',
            v,
        )
    )
    v = password("kotlin-pw")
    add(
        _p(
            "kotlin-mapof-password",
            "src/Db.kt",
            f'val props = mapOf("user" to "app", "password" to "{v}")\n',
            v,
        )
    )
    v = password("cs-config-secret", 32, 40, symbols="")
    add(_p("csharp-configuration-secret", "Program.cs", f'builder.Configuration["Jwt:Secret"] = "{v}";\n', v))
    v = password("cs-config-pw")
    add(_p("csharp-configuration-password", "Startup.cs", f'Configuration["Smtp:Password"] = "{v}";\n', v))
    v = password("ps-securestring")
    add(
        _p(
            "powershell-securestring",
            "deploy/connect.ps1",
            f'$secure = ConvertTo-SecureString "{v}" -AsPlainText -Force\n',
            v,
        )
    )
    v = password("ps-securestring-2")
    add(
        _p(
            "powershell-securestring-string",
            "scripts/Setup.ps1",
            f"$pw = ConvertTo-SecureString -String '{v}' -AsPlainText -Force\n",
            v,
        )
    )
    v = draw("list-keys-1", ALNUM, 32)
    w = draw("list-keys-2", ALNUM, 32)
    add(_p("py-list-api-keys", "settings.py", f'API_KEYS = ["{w}", "{v}"]\n', v))
    v = password("list-pw-1")
    add(_p("yaml-flow-list-passwords", "config/users.yml", f"passwords: [{v}]\n", v))
    v = password("list-tokens-1", symbols="")
    add(_p("json-list-tokens", "config/tokens.json", f'{{"tokens": ["{v}"]}}\n', v))
    return out


# --- negatives --------------------------------------------------------------------------------------------


def _n(shape: str, path: str, text: str, source: str = OWN) -> Case:
    if not shape.startswith("neg-"):
        raise ValueError(f"{shape}: a negative's shape starts with neg-")
    return Case(shape, False, path, text, "", source)


def holdout_negatives() -> list[Case]:
    out: list[Case] = []
    add = out.append

    # settings that name credentials without holding them --------------------------------------------------
    add(
        _n(
            "neg-django-password-validators",
            "shop/settings.py",
            "AUTH_PASSWORD_VALIDATORS = [\n    {'NAME': 'django.contrib.auth.password_validation.UserAttributeSimilarityValidator'},\n"
            "    {'NAME': 'django.contrib.auth.password_validation.MinimumLengthValidator'},\n]\n",
        )
    )
    add(
        _n(
            "neg-django-password-hashers",
            "settings/base.py",
            "PASSWORD_HASHERS = [\n    'django.contrib.auth.hashers.PBKDF2PasswordHasher',\n    'django.contrib.auth.hashers.BCryptSHA256PasswordHasher',\n]\n",
        )
    )
    add(
        _n(
            "neg-django-knobs",
            "settings.py",
            "PASSWORD_RESET_TIMEOUT_DAYS = 3\nSESSION_COOKIE_SECURE = True\nCSRF_COOKIE_HTTPONLY = True\n",
        )
    )
    add(
        _n(
            "neg-django-db-env",
            "settings.py",
            "DATABASES = {\n    'default': {\n        'USER': env('DB_USER'),\n        'PASSWORD': env('DB_PASSWORD'),\n    }\n}\n",
        )
    )
    add(
        _n(
            "neg-django-db-empty",
            "mysite/settings.py",
            "DATABASES = {\n    'default': {\n        'ENGINE': 'django.db.backends.sqlite3',\n        'NAME': BASE_DIR / 'db.sqlite3',\n        'PASSWORD': '',\n    }\n}\n",
        )
    )
    add(
        _n(
            "neg-django-secret-generated",
            "settings/dev.py",
            "from django.core.management.utils import get_random_secret_key\nSECRET_KEY = get_random_secret_key()\n",
        )
    )
    add(
        _n(
            "neg-config-ttl",
            "config/auth.yaml",
            "auth:\n  token_ttl: 3600\n  refresh_token_ttl: 2592000\n  password_reset_token_validity: 86400\n",
        )
    )
    add(
        _n(
            "neg-config-ttl",
            "app/config.py",
            "ACCESS_TOKEN_EXPIRES = timedelta(minutes=15)\nMAX_PASSWORD_AGE_DAYS = 90\n",
        )
    )
    add(
        _n(
            "neg-oauth-endpoints",
            "config/oidc.yml",
            "oidc:\n  token_endpoint: https://login.corp.io/oauth2/v1/token\n  authorization_endpoint: https://login.corp.io/oauth2/v1/authorize\n",
        )
    )
    add(
        _n(
            "neg-oauth-grant-type",
            "client.py",
            'data = {"grant_type": "password", "scope": "openid profile"}\n',
        )
    )
    add(
        _n(
            "neg-env-var-name-config",
            "client.py",
            'API_KEY_ENV_VAR = "OPENAI_API_KEY"\nTOKEN_HEADER = "X-Auth-Token"\n',
        )
    )
    add(
        _n(
            "neg-spring-security-encoder",
            "SecurityConfig.java",
            "@Bean\npublic PasswordEncoder passwordEncoder() {\n    return PasswordEncoderFactories.createDelegatingPasswordEncoder();\n}\n",
        )
    )
    add(
        _n(
            "neg-password-field-name",
            "src/forms/Login.tsx",
            'const [password, setPassword] = useState("");\n<input type="password" autoComplete="current-password" onChange={(e) => setPassword(e.target.value)} />\n',
        )
    )
    add(
        _n(
            "neg-java-setpassword-encoded",
            "UserService.java",
            "user.setPassword(passwordEncoder.encode(dto.getPassword()));\n",
        )
    )
    add(
        _n(
            "neg-json-schema-password",
            "schemas/user.json",
            '{"properties": {"password": {"type": "string", "format": "password", "minLength": 12, "writeOnly": true}}}\n',
        )
    )
    add(
        _n(
            "neg-openapi-apikey-scheme",
            "openapi.yaml",
            "components:\n  securitySchemes:\n    ApiKeyAuth:\n      type: apiKey\n      in: header\n      name: X-API-Key\n",
        )
    )

    # secret references ----------------------------------------------------------------------------------------
    add(
        _n(
            "neg-k8s-envfrom-secretref",
            "k8s/deployment.yaml",
            "      containers:\n        - name: app\n          envFrom:\n            - secretRef:\n                name: app-env\n",
        )
    )
    add(
        _n(
            "neg-k8s-secretkeyref-password",
            "k8s/db.yaml",
            "        - name: POSTGRES_PASSWORD\n          valueFrom:\n            secretKeyRef:\n              name: db-credentials\n              key: postgres-password\n",
        )
    )
    add(
        _n(
            "neg-helm-existing-secret",
            "values.yaml",
            "auth:\n  existingSecret: my-secret\n  existingSecretPasswordKey: password\n  secretKeys:\n    adminPasswordKey: admin-password\n",
        )
    )
    add(
        _n(
            "neg-helm-template-ref",
            "templates/secret.yaml",
            'data:\n  password: {{ .Values.auth.password | b64enc | quote }}\n  api-key: {{ required "apiKey" .Values.apiKey | b64enc }}\n',
        )
    )
    add(
        _n(
            "neg-k8s-image-pull-secrets",
            "k8s/pod.yaml",
            "spec:\n  imagePullSecrets:\n    - name: regcred\n  serviceAccountName: deployer\n",
        )
    )
    add(
        _n(
            "neg-external-secret",
            "k8s/external-secret.yaml",
            "spec:\n  secretStoreRef:\n    name: vault-backend\n  data:\n    - secretKey: password\n      remoteRef:\n        key: prod/shop/db\n        property: password\n",
        )
    )
    add(_n("neg-vault-path", "scripts/read.sh", "vault kv get -field=password secret/data/prod/shop/db\n"))
    add(
        _n(
            "neg-vault-policy",
            "policies/app.hcl",
            'path "secret/data/shop/*" {\n  capabilities = ["read", "list"]\n}\n',
        )
    )
    add(_n("neg-vault-addr", ".env", "VAULT_ADDR=https://vault.corp.io:8200\nVAULT_NAMESPACE=admin/shop\n"))
    add(
        _n(
            "neg-aws-arn",
            "iam/policy.json",
            '{"Effect": "Allow", "Action": "secretsmanager:GetSecretValue", "Resource": "arn:aws:secretsmanager:eu-west-1:123456789012:secret:prod/shop/db-password-AbCdEf"}\n',
        )
    )
    add(
        _n(
            "neg-aws-arn",
            "serverless.yml",
            "  environment:\n    DB_PASSWORD_PARAM: arn:aws:ssm:eu-west-1:123456789012:parameter/prod/db/password\n    KMS_KEY: arn:aws:kms:eu-west-1:123456789012:key/"
            + uuid_from("kms-key")
            + "\n",
        )
    )
    add(
        _n(
            "neg-tf-secret-data-source",
            "rds.tf",
            'resource "aws_db_instance" "main" {\n  password = data.aws_secretsmanager_secret_version.db.secret_string\n}\n',
        )
    )
    add(
        _n(
            "neg-tf-sensitive-variable",
            "variables.tf",
            'variable "db_password" {\n  type      = string\n  sensitive = true\n}\n',
        )
    )
    add(_n("neg-tfvars-empty", "example.tfvars", 'admin_password = ""\napi_token      = ""\n'))
    add(
        _n(
            "neg-ansible-vault-ref",
            "group_vars/all.yml",
            "ansible_become_pass: \"{{ vault_become_pass }}\"\nmysql_root_password: \"{{ lookup('env', 'MYSQL_ROOT_PASSWORD') }}\"\n",
        )
    )
    add(
        _n(
            "neg-gha-secrets-ref",
            ".github/workflows/release.yml",
            "      - uses: docker/login-action@v3\n        with:\n          username: ${{ vars.DOCKERHUB_USERNAME }}\n          password: ${{ secrets.DOCKERHUB_TOKEN }}\n",
        )
    )
    add(
        _n(
            "neg-gha-github-token",
            ".github/workflows/ci.yml",
            "    env:\n      GH_TOKEN: ${{ github.token }}\n    secrets: inherit\n",
        )
    )
    add(
        _n(
            "neg-compose-password-file",
            "docker-compose.yml",
            "    environment:\n      - POSTGRES_PASSWORD_FILE=/run/secrets/db_password\n      - POSTGRES_HOST_AUTH_METHOD=scram-sha-256\n",
        )
    )
    add(
        _n(
            "neg-compose-interpolation",
            "compose.yaml",
            "    environment:\n      - POSTGRES_PASSWORD=${POSTGRES_PASSWORD:?set it in .env}\n      - REDIS_PASSWORD=${REDIS_PASSWORD:-}\n",
        )
    )
    add(
        _n(
            "neg-rails-erb-env",
            "config/database.yml",
            'production:\n  username: shop\n  password: <%= ENV["SHOP_DATABASE_PASSWORD"] %>\n',
        )
    )
    add(
        _n(
            "neg-rails-dev-empty",
            "config/database.yml",
            "development:\n  adapter: postgresql\n  database: shop_development\n  username: shop\n  password:\n",
        )
    )
    add(
        _n(
            "neg-spring-placeholder",
            "application.yml",
            "spring:\n  datasource:\n    password: ${DB_PASSWORD:}\n  mail:\n    password: ${MAIL_PASSWORD}\n",
        )
    )
    add(
        _n(
            "neg-ps-read-host",
            "setup.ps1",
            '$pw = Read-Host -AsSecureString "Password"\n$cred = Get-Credential -UserName "CORP\\svc" -Message "Service account"\n',
        )
    )
    add(
        _n(
            "neg-ps-env-securestring",
            "deploy.ps1",
            "$pw = ConvertTo-SecureString $env:SVC_PASSWORD -AsPlainText -Force\n",
        )
    )
    add(
        _n(
            "neg-docker-password-stdin",
            "ci/login.sh",
            'echo "$REGISTRY_PASSWORD" | docker login -u ci --password-stdin registry.corp.io\n',
        )
    )
    add(
        _n(
            "neg-sshpass-file",
            "deploy.sh",
            "sshpass -f ~/.ssh/deploy.pass ssh deploy@10.0.4.2 uptime\nSSHPASS=$(cat /run/secrets/ssh) sshpass -e ssh pi@10.0.4.3\n",
        )
    )
    add(
        _n(
            "neg-redis-cli-var",
            "scripts/flush.sh",
            'redis-cli -h "$REDIS_HOST" -a "$REDIS_PASSWORD" --no-auth-warning PING\n',
        )
    )
    add(
        _n(
            "neg-mongosh-prompt",
            "docs/admin.md",
            "mongosh --host db.internal -u admin -p --authenticationDatabase admin\n",
        )
    )
    add(
        _n(
            "neg-requests-auth-vars",
            "client.py",
            "resp = requests.get(url, auth=(settings.API_USER, settings.API_PASSWORD))\nauth = HTTPBasicAuth(user, os.environ['JIRA_TOKEN'])\n",
        )
    )
    add(
        _n(
            "neg-git-clone-var-token",
            "ci/clone.sh",
            'git clone "https://x-access-token:${GITHUB_TOKEN}@github.com/corp/app.git"\ngit clone https://oauth2:$CI_JOB_TOKEN@gitlab.corp.io/ops/infra.git\n',
        )
    )
    add(
        _n(
            "neg-git-credential-helper",
            ".gitconfig",
            "[credential]\n\thelper = store --file ~/.git-credentials\n[user]\n\temail = alice@corp.io\n",
        )
    )
    add(
        _n(
            "neg-pip-conf-env",
            "pip.conf",
            "[global]\nindex-url = https://${PIP_USER}:${PIP_TOKEN}@nexus.corp.io/repository/pypi/simple\n",
        )
    )
    add(
        _n(
            "neg-gradle-props-knobs",
            "gradle.properties",
            "org.gradle.jvmargs=-Xmx2048m -Dfile.encoding=UTF-8\nandroid.useAndroidX=true\nsigning.keyId=24875D73\nsigning.secretKeyRingFile=/home/ci/.gnupg/secring.gpg\n",
        )
    )
    add(
        _n(
            "neg-gradle-findProperty",
            "build.gradle.kts",
            'credentials {\n    username = findProperty("ossrhUsername") as String?\n    password = System.getenv("OSSRH_PASSWORD") ?: ""\n}\n',
        )
    )
    add(
        _n(
            "neg-maven-settings-env",
            "settings.xml",
            "<server>\n  <id>ossrh</id>\n  <username>${env.OSSRH_USER}</username>\n  <password>${env.OSSRH_PASSWORD}</password>\n</server>\n",
        )
    )
    add(
        _n(
            "neg-csharp-integrated-security",
            "appsettings.json",
            '{"ConnectionStrings": {"Default": "Server=(localdb)\\\\mssqllocaldb;Database=Shop;Trusted_Connection=True;MultipleActiveResultSets=true"}}\n',
        )
    )
    add(
        _n(
            "neg-jdbc-no-password",
            "application.properties",
            "spring.datasource.url=jdbc:postgresql://localhost:5432/shop?sslmode=disable&ApplicationName=shop\nspring.h2.console.enabled=true\n",
        )
    )
    add(
        _n(
            "neg-h2-blank-password",
            "application-test.properties",
            "spring.datasource.url=jdbc:h2:mem:testdb;DB_CLOSE_DELAY=-1\nspring.datasource.username=sa\nspring.datasource.password=\n",
        )
    )

    # env var names and example env files -----------------------------------------------------------------
    add(
        _n(
            "neg-env-example-empty",
            ".env.example",
            "APP_KEY=\nDB_PASSWORD=\nMAIL_PASSWORD=\nAWS_SECRET_ACCESS_KEY=\nPUSHER_APP_SECRET=\n",
        )
    )
    add(_n("neg-env-example-changeme", ".env.sample", "POSTGRES_PASSWORD=changeme\nJWT_SECRET=changeme\n"))
    add(
        _n(
            "neg-laravel-null",
            ".env.example",
            "MAIL_MAILER=smtp\nMAIL_HOST=mailpit\nMAIL_USERNAME=null\nMAIL_PASSWORD=null\nREDIS_PASSWORD=null\n",
            LARAVEL,
        )
    )
    add(
        _n(
            "neg-env-var-list",
            "tox.ini",
            "[testenv]\npassenv =\n    DATABASE_URL\n    AWS_SESSION_TOKEN\n    SENTRY_DSN\n",
        )
    )
    add(
        _n(
            "neg-env-var-list",
            "app/config.py",
            'REQUIRED_ENV = ["DB_PASSWORD", "STRIPE_SECRET_KEY", "SLACK_BOT_TOKEN"]\n',
        )
    )
    add(
        _n(
            "neg-env-var-list",
            "Dockerfile",
            "ARG NPM_TOKEN\nRUN --mount=type=secret,id=npmrc,target=/root/.npmrc npm ci\n",
        )
    )
    add(
        _n(
            "neg-shell-prompt-read",
            "scripts/setup.sh",
            'read -rsp "Database password: " DB_PASSWORD\nexport DB_PASSWORD\n',
        )
    )

    # CLI help text and docs ------------------------------------------------------------------------------
    add(
        _n(
            "neg-cli-help",
            "docs/cli.txt",
            "  --password PASSWORD   the password to use when connecting\n  --token TOKEN         an API token (default: $API_TOKEN)\n",
        )
    )
    add(
        _n(
            "neg-cli-help",
            "src/cli.rs",
            '    /// Password for the registry\n    #[arg(long, env = "REGISTRY_PASSWORD", hide_env_values = true)]\n    password: Option<String>,\n',
        )
    )
    add(
        _n(
            "neg-cli-usage",
            "README.md",
            "usage: dbtool [-h] [-u USER] [-p [PASSWORD]] [--api-key KEY] host\n",
        )
    )
    add(
        _n(
            "neg-click-option",
            "cli.py",
            '@click.option("--token", envvar="SHOP_TOKEN", help="API token.", required=True)\n',
        )
    )
    add(
        _n(
            "neg-man-page",
            "docs/pgpass.md",
            "Each line of `.pgpass` has the form `hostname:port:database:username:password`.\n",
        )
    )
    add(_n("neg-pgpass-comment", ".pgpass", "# hostname:port:database:username:password\n"))
    add(
        _n(
            "neg-redis-conf-default",
            "redis.conf",
            "# requirepass foobared\n# masterauth <master-password>\n",
            REDIS,
        )
    )
    add(
        _n(
            "neg-wp-sample-salt",
            "wp-config-sample.php",
            "define( 'AUTH_KEY',         'put your unique phrase here' );\ndefine( 'SECURE_AUTH_KEY',  'put your unique phrase here' );\n",
            WP,
        )
    )
    add(
        _n(
            "neg-wp-knobs",
            "wp-config.php",
            "define( 'WP_DEBUG', false );\ndefine( 'DB_CHARSET', 'utf8mb4' );\n$table_prefix = 'wp_';\n",
        )
    )
    add(
        _n(
            "neg-docs-bearer-angle",
            "docs/api.md",
            "```http\nGET /v1/orders HTTP/1.1\nAuthorization: Bearer <access_token>\n```\n",
        )
    )
    add(
        _n(
            "neg-docs-bearer-braces",
            "docs/auth.rst",
            "Send ``Authorization: Bearer {token}`` with every request.\n",
        )
    )
    add(
        _n(
            "neg-docs-jwt-truncated",
            "docs/auth.md",
            "The response holds a JWT such as `eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9...`.\n",
        )
    )
    add(
        _n(
            "neg-docs-jwt-truncated",
            "README.md",
            '{"access_token": "eyJhbGciOi...", "token_type": "Bearer", "expires_in": 3600}\n',
        )
    )
    add(
        _n(
            "neg-docs-token-ellipsis",
            "docs/setup.md",
            "export GITHUB_TOKEN=ghp_...\nexport OPENAI_API_KEY=sk-...\n",
        )
    )
    add(
        _n(
            "neg-docs-provider-prefix-prose",
            "docs/tokens.md",
            "Personal access tokens start with `glpat-`, runner tokens with `glrt-`, and Slack app tokens with `xapp-`.\n",
        )
    )
    add(
        _n(
            "neg-i18n",
            "config/locales/en.yml",
            'en:\n  password_too_short: "Password is too short (minimum is %{count} characters)"\n  token_expired: "Your session token has expired"\n',
        )
    )
    add(
        _n(
            "neg-i18n",
            "locale/de/LC_MESSAGES/django.po",
            'msgid "Password"\nmsgstr "Passwort"\n\nmsgid "API key"\nmsgstr "API-Schlüssel"\n',
        )
    )
    add(
        _n(
            "neg-i18n",
            "src/i18n/fr.json",
            '{"auth.password.label": "Mot de passe", "auth.password.reset.sent": "Un e-mail a été envoyé"}\n',
        )
    )
    add(
        _n(
            "neg-changelog-prose",
            "CHANGELOG.md",
            "- Rotate the `SECRET_KEY` and API tokens on upgrade (#1432).\n- `--password` now reads from stdin when given `-`.\n",
        )
    )

    # SQL and migrations --------------------------------------------------------------------------------------
    add(
        _n(
            "neg-sql-columns",
            "queries/users.sql",
            "SELECT id, email, password_hash FROM users WHERE email = $1;\nUPDATE users SET password = ? WHERE id = ?;\n",
        )
    )
    add(
        _n(
            "neg-sql-insert-params",
            "repo/user_repo.py",
            'cur.execute("INSERT INTO users (email, password) VALUES (%s, %s)", (email, hashed))\n',
        )
    )
    add(
        _n(
            "neg-sql-create-user-param",
            "migrations/0003.sql",
            "CREATE ROLE app WITH LOGIN PASSWORD :'app_password';\n",
        )
    )
    add(
        _n(
            "neg-rails-migration",
            "db/migrate/20240101000000_devise_create_users.rb",
            't.string :encrypted_password, null: false, default: ""\nt.string :reset_password_token\n',
        )
    )

    # test assertions and code that passes credentials around --------------------------------------------------
    add(
        _n(
            "neg-test-assert-vars",
            "tests/test_login.py",
            'assert response.json()["access_token"] == access_token\nassert user.check_password(password)\n',
        )
    )
    add(
        _n(
            "neg-test-expect",
            "test/auth.test.js",
            "expect(res.body.password).toBeUndefined();\nexpect(token).toEqual(session.token);\n",
        )
    )
    add(
        _n(
            "neg-go-compare",
            "auth_test.go",
            'if got.Password != want.Password {\n\tt.Errorf("password = %q, want %q", got.Password, want.Password)\n}\n',
        )
    )
    add(
        _n(
            "neg-minified-assignments",
            "dist/main.3f9a1c.js",
            'function s(e,t){e.password=t.password,e.token=t.token,e.apiKey=t.apiKey||""}var o=s;\n',
        )
    )
    add(
        _n(
            "neg-minified-webpack",
            "dist/vendor.js",
            '(self.webpackChunkshop=self.webpackChunkshop||[]).push([[792],{4871:(e,t,n)=>{"use strict";n.d(t,{Z:()=>r})}}]);\n',
        )
    )
    add(
        _n(
            "neg-long-identifier",
            "src/test/java/corp/PasswordResetControllerIntegrationTests.java",
            "void userCanResetPasswordWithValidTokenAndMatchingConfirmation() {}\n",
        )
    )
    add(
        _n(
            "neg-long-identifier",
            "src/styles.module.css.d.ts",
            "export const passwordStrengthMeterIndicatorContainer__3xQ9z: string;\n",
        )
    )

    # digests, ids and lockfiles --------------------------------------------------------------------------------
    add(
        _n(
            "neg-gha-pinned-sha",
            ".github/workflows/ci.yml",
            f"      - uses: actions/checkout@{digest_hex('holdout-checkout', 'sha1')} # v4.1.1\n      - uses: actions/setup-python@{digest_hex('holdout-setup-python', 'sha1')} # v5\n",
        )
    )
    add(
        _n(
            "neg-docker-digest",
            "Dockerfile",
            f"FROM node:20-alpine@sha256:{digest_hex('holdout-node-alpine')}\n",
        )
    )
    add(
        _n(
            "neg-gradle-wrapper-sha",
            "gradle/wrapper/gradle-wrapper.properties",
            f"distributionUrl=https\\://services.gradle.org/distributions/gradle-8.7-bin.zip\ndistributionSha256Sum={digest_hex('holdout-gradle')}\n",
        )
    )
    add(
        _n(
            "neg-dockerfile-sha256sum",
            "Dockerfile",
            f'RUN curl -fsSLO https://nodejs.org/dist/v20.11.1/node-v20.11.1-linux-x64.tar.xz \\\n && echo "{digest_hex("holdout-node-tar")}  node-v20.11.1-linux-x64.tar.xz" | sha256sum -c -\n',
        )
    )
    add(
        _n(
            "neg-poetry-lock",
            "poetry.lock",
            f'[metadata]\nlock-version = "2.0"\npython-versions = "^3.11"\ncontent-hash = "{digest_hex("holdout-poetry")}"\n',
        )
    )
    add(
        _n(
            "neg-pipfile-lock",
            "Pipfile.lock",
            f'{{"default": {{"requests": {{"hashes": ["sha256:{digest_hex("holdout-requests-a")}", "sha256:{digest_hex("holdout-requests-b")}"], "version": "==2.31.0"}}}}}}\n',
        )
    )
    add(
        _n(
            "neg-composer-lock",
            "composer.lock",
            f'{{"content-hash": "{digest_hex("holdout-composer", "md5")}", "packages": [{{"name": "monolog/monolog", "source": {{"reference": "{digest_hex("holdout-monolog", "sha1")}"}}}}]}}\n',
        )
    )
    add(
        _n(
            "neg-flake-lock",
            "flake.lock",
            f'{{"nodes": {{"nixpkgs": {{"locked": {{"narHash": "sha256-{b64(hashlib.sha256(b"holdout-nixpkgs").digest())}", "rev": "{digest_hex("holdout-nixpkgs-rev", "sha1")}"}}}}}}}}\n',
        )
    )
    add(
        _n(
            "neg-terraform-lock",
            ".terraform.lock.hcl",
            f'provider "registry.terraform.io/hashicorp/aws" {{\n  version = "5.40.0"\n  hashes = [\n    "h1:{b64(hashlib.sha256(b"holdout-tf-aws").digest())}",\n    "zh:{digest_hex("holdout-tf-aws-zh")}",\n  ]\n}}\n',
        )
    )
    add(
        _n(
            "neg-pnpm-lock",
            "pnpm-lock.yaml",
            f"  /left-pad@1.3.0:\n    resolution: {{integrity: sha512-{b64(hashlib.sha512(b'holdout-left-pad').digest())}}}\n",
        )
    )
    add(
        _n(
            "neg-gemfile-lock-checksums",
            "Gemfile.lock",
            f"CHECKSUMS\n  rack (3.0.9) sha256={digest_hex('holdout-rack')}\n  rails (7.1.3) sha256={digest_hex('holdout-rails')}\n",
        )
    )
    add(
        _n(
            "neg-podfile-lock",
            "ios/Podfile.lock",
            f"SPEC CHECKSUMS:\n  Alamofire: {digest_hex('holdout-alamofire', 'sha1')}\n\nPODFILE CHECKSUM: {digest_hex('holdout-podfile', 'sha1')}\n",
        )
    )
    add(
        _n(
            "neg-mix-lock",
            "mix.lock",
            f'%{{\n  "jason": {{:hex, :jason, "1.4.1", "{digest_hex("holdout-jason")}", [:mix], [], "hexpm", "{digest_hex("holdout-jason-outer")}"}},\n}}\n',
        )
    )
    add(
        _n(
            "neg-go-sum",
            "go.sum",
            f"golang.org/x/crypto v0.21.0 h1:{b64(hashlib.sha256(b'holdout-x-crypto').digest())}\ngolang.org/x/crypto v0.21.0/go.mod h1:{b64(hashlib.sha256(b'holdout-x-crypto-mod').digest())}\n",
        )
    )
    add(
        _n(
            "neg-nix-hash",
            "default.nix",
            f'  src = fetchFromGitHub {{\n    owner = "corp";\n    repo = "tool";\n    rev = "v1.2.0";\n    hash = "sha256-{b64(hashlib.sha256(b"holdout-nix-src").digest())}";\n  }};\n',
        )
    )
    add(
        _n(
            "neg-bazel-http-archive",
            "WORKSPACE",
            f'http_archive(\n    name = "rules_go",\n    sha256 = "{digest_hex("holdout-rules-go")}",\n    urls = ["https://github.com/bazelbuild/rules_go/releases/download/v0.46.0/rules_go-v0.46.0.zip"],\n)\n',
        )
    )
    add(
        _n(
            "neg-pkgbuild",
            "PKGBUILD",
            f"sha256sums=('{digest_hex('holdout-pkg')}')\nvalidpgpkeys=('{digest_hex('holdout-pgp', 'sha1').upper()}')\n",
        )
    )
    add(
        _n(
            "neg-pip-vcs-pin",
            "requirements.txt",
            f"git+https://github.com/corp/shop-utils.git@{digest_hex('holdout-shop-utils', 'sha1')}#egg=shop-utils\n",
        )
    )
    add(
        _n(
            "neg-gerrit-change-id",
            "COMMIT_MSG",
            f"Fix token refresh race\n\nChange-Id: I{digest_hex('holdout-change', 'sha1')}\nSigned-off-by: Alice <alice@corp.io>\n",
        )
    )
    add(
        _n(
            "neg-git-log",
            "docs/release.md",
            f"commit {digest_hex('holdout-commit', 'sha1')}\nAuthor: Alice <alice@corp.io>\n\n    Rotate secrets on deploy\n",
        )
    )
    add(
        _n(
            "neg-uuid-ids",
            "config/features.json",
            f'{{"tenant_id": "{uuid_from("neg-tenant")}", "workspace_id": "{uuid_from("neg-workspace")}", "request_id": "{uuid_from("neg-request")}"}}\n',
        )
    )
    add(
        _n(
            "neg-sln-guids",
            "Shop.sln",
            'Project("{FAE04EC0-301F-11D3-BF4B-00C04F79EFBC}") = "Shop", "Shop\\Shop.csproj", "{'
            + uuid_from("neg-sln").upper()
            + '}"\n',
        )
    )
    add(
        _n(
            "neg-xcode-ids",
            "Shop.xcodeproj/project.pbxproj",
            f"\t\t{draw('neg-xc-a', '0123456789ABCDEF', 24)} /* AppDelegate.swift in Sources */ = {{isa = PBXBuildFile; fileRef = {draw('neg-xc-b', '0123456789ABCDEF', 24)} /* AppDelegate.swift */; }};\n",
        )
    )
    add(
        _n(
            "neg-unity-meta-guid",
            "Assets/Scripts/Player.cs.meta",
            f"fileFormatVersion: 2\nguid: {draw('neg-unity', HEX, 32)}\nMonoImporter:\n  serializedVersion: 2\n",
        )
    )
    add(
        _n(
            "neg-stripe-object-ids",
            "tests/fixtures/charge.json",
            f'{{"id": "ch_3{draw("neg-ch", ALNUM, 23)}", "customer": "cus_{draw("neg-cus", ALNUM, 14)}", "payment_method": "pm_1{draw("neg-pm", ALNUM, 23)}"}}\n',
        )
    )
    add(
        _n(
            "neg-aws-resource-ids",
            "infra/outputs.json",
            f'{{"vpc_id": "vpc-{draw("neg-vpc", HEX, 17)}", "ami": "ami-{draw("neg-ami", HEX, 17)}", "account": "123456789012"}}\n',
        )
    )
    add(
        _n(
            "neg-vercel-project-id",
            ".vercel/project.json",
            f'{{"projectId": "prj_{draw("neg-prj", ALNUM, 28)}", "orgId": "team_{draw("neg-team", ALNUM, 24)}"}}\n',
        )
    )
    add(
        _n(
            "neg-gha-cache-key",
            ".github/workflows/ci.yml",
            "      - uses: actions/cache@v4\n        with:\n          path: ~/.cache/pip\n          key: ${{ runner.os }}-pip-${{ hashFiles('**/requirements*.txt') }}\n",
        )
    )
    add(
        _n(
            "neg-k8s-uid",
            "k8s/dump.yaml",
            f'metadata:\n  name: shop\n  uid: {uuid_from("neg-k8s-uid")}\n  resourceVersion: "48213377"\n',
        )
    )

    # encoded media, public keys and certificates -----------------------------------------------------------
    gif = b64(b"GIF89a\x01\x00\x01\x00\x80\x00\x00" + random_bytes("neg-gif", 60))
    add(
        _n(
            "neg-data-image-gif",
            "src/components/Spinner.jsx",
            f'const spinner = "data:image/gif;base64,{gif}";\n',
        )
    )
    svg = b64(
        b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="M12 2L2 7l10 5 10-5-10-5z"/></svg>'
    )
    add(
        _n(
            "neg-data-image-svg",
            "static/icons.css",
            f".icon-logo {{ background-image: url('data:image/svg+xml;base64,{svg}'); }}\n",
        )
    )
    png = b64(b"\x89PNG\r\n\x1a\n" + random_bytes("neg-nb-png", 150))
    add(
        _n(
            "neg-ipynb-image-output",
            "notebooks/plot.ipynb",
            f'{{"outputs": [{{"data": {{"image/png": "{png}", "text/plain": ["<Figure size 640x480>"]}}, "output_type": "display_data"}}]}}\n',
        )
    )
    woff = b64(b"wOFF" + random_bytes("neg-woff", 150))
    add(
        _n(
            "neg-data-font-woff",
            "vendor/icons.css",
            f"@font-face {{ font-family: 'icons'; src: url('data:application/font-woff;charset=utf-8;base64,{woff}') format('woff'); }}\n",
        )
    )
    cert = b64(bytes.fromhex("308203") + random_bytes("neg-cert", 700))
    cert_lines = "\n".join(cert[i : i + 64] for i in range(0, len(cert), 64))
    add(
        _n(
            "neg-pem-certificate",
            "certs/ca.crt",
            f"-----BEGIN CERTIFICATE-----\n{cert_lines}\n-----END CERTIFICATE-----\n",
        )
    )
    csr = b64(bytes.fromhex("308202") + random_bytes("neg-csr", 500))
    csr_lines = "\n".join(csr[i : i + 64] for i in range(0, len(csr), 64))
    add(
        _n(
            "neg-pem-csr",
            "certs/shop.csr",
            f"-----BEGIN CERTIFICATE REQUEST-----\n{csr_lines}\n-----END CERTIFICATE REQUEST-----\n",
        )
    )
    ca_data = b64(f"-----BEGIN CERTIFICATE-----\n{cert_lines}\n-----END CERTIFICATE-----\n".encode())
    add(
        _n(
            "neg-kubeconfig-ca-data",
            ".kube/config",
            f"clusters:\n- cluster:\n    certificate-authority-data: {ca_data}\n    server: https://10.0.0.1:6443\n  name: prod\n",
        )
    )
    add(
        _n(
            "neg-webhook-cabundle",
            "k8s/webhook.yaml",
            f"webhooks:\n  - name: validate.shop.io\n    clientConfig:\n      caBundle: {ca_data[:400]}\n",
        )
    )
    ed_pub = b64(b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00 " + random_bytes("neg-ed-pub", 32))
    rsa_pub = b64(
        b"\x00\x00\x00\x07ssh-rsa\x00\x00\x00\x03\x01\x00\x01\x00\x00\x01\x01\x00"
        + random_bytes("neg-rsa-pub", 256)
    )
    add(
        _n(
            "neg-ssh-public-keys",
            "ansible/files/authorized_keys",
            f"ssh-ed25519 {ed_pub} alice@laptop\nssh-rsa {rsa_pub} ci@runner\n",
        )
    )
    hashed_host = b64(random_bytes("neg-kh-salt", 20)) + "|" + b64(random_bytes("neg-kh-hash", 20))
    add(
        _n(
            "neg-known-hosts-hashed",
            ".ssh/known_hosts",
            f"|1|{hashed_host} ssh-ed25519 {ed_pub}\ngithub.com ssh-ed25519 {ed_pub}\n",
        )
    )
    pgp = b64(b"\x99\x01\x0d\x04" + random_bytes("neg-pgp", 300))
    pgp_lines = "\n".join(pgp[i : i + 64] for i in range(0, len(pgp), 64))
    add(
        _n(
            "neg-pgp-public-key",
            "KEYS",
            f"-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n{pgp_lines}\n=Ab3d\n-----END PGP PUBLIC KEY BLOCK-----\n",
        )
    )
    modulus = b64url(random_bytes("neg-jwks-n", 256))
    add(
        _n(
            "neg-jwks-public",
            "public/.well-known/jwks.json",
            f'{{"keys": [{{"kty": "RSA", "use": "sig", "kid": "{draw("neg-jwks-kid", B64URL, 43)}", "n": "{modulus}", "e": "AQAB"}}]}}\n',
        )
    )
    add(
        _n(
            "neg-wireguard-public",
            "wg0.conf",
            f"[Peer]\nPublicKey = {b64(random_bytes('neg-wg-pub', 32))}\nAllowedIPs = 10.8.0.2/32\nEndpoint = vpn.corp.io:51820\n",
        )
    )
    age_pub = "age1" + draw("neg-age", "qpzry9x8gf2tvdw0s3jn54khce6mua7l", 58)
    add(
        _n(
            "neg-sops-yaml-recipients",
            ".sops.yaml",
            f"creation_rules:\n  - path_regex: secrets/.*\\.yaml$\n    age: {age_pub}\n",
        )
    )
    mapbox_pk = (
        "pk."
        + b64url(
            json.dumps(
                {"u": "shopmaps", "a": draw("neg-mapbox-a", LOWER + DIGITS, 25)}, separators=(",", ":")
            ).encode()
        )
        + "."
        + draw("neg-mapbox-b", B64URL, 22)
    )
    add(_n("neg-mapbox-public-token", "src/map.js", f"mapboxgl.accessToken = '{mapbox_pk}';\n"))
    add(
        _n(
            "neg-recaptcha-site-key",
            "templates/contact.html",
            f'<div class="g-recaptcha" data-sitekey="6L{draw("neg-recaptcha", ALNUM + "_-", 38)}"></div>\n',
        )
    )

    # encrypted and hashed values ------------------------------------------------------------------------------
    sops = f"ENC[AES256_GCM,data:{b64(random_bytes('neg-sops-data', 18))},iv:{b64(random_bytes('neg-sops-iv', 32))},tag:{b64(random_bytes('neg-sops-tag', 16))},type:str]"
    add(
        _n(
            "neg-sops-encrypted",
            "secrets/prod.enc.yaml",
            f"db:\n  password: {sops}\nsops:\n  lastmodified: '2024-03-01T12:00:00Z'\n",
        )
    )
    sealed = "AgB" + b64(random_bytes("neg-sealed", 300))
    add(
        _n(
            "neg-sealed-secret",
            "k8s/sealed-db.yaml",
            f"kind: SealedSecret\nspec:\n  encryptedData:\n    password: {sealed}\n",
        )
    )
    add(
        _n(
            "neg-travis-secure",
            ".travis.yml",
            f'env:\n  global:\n    - secure: "{b64(random_bytes("neg-travis", 256))}"\n',
        )
    )
    add(
        _n(
            "neg-jasypt",
            "application.yml",
            f"spring:\n  datasource:\n    password: ENC({b64(random_bytes('neg-jasypt', 32))})\n",
        )
    )
    bcrypt = "$2b$12$" + draw("neg-bcrypt", ALNUM + "./", 53)
    add(
        _n(
            "neg-bcrypt-fixture",
            "tests/fixtures/users.yml",
            f'alice:\n  email: alice@corp.io\n  password_digest: "{bcrypt}"\n',
        )
    )
    pbkdf2 = (
        f"pbkdf2_sha256$600000${draw('neg-pbkdf2-salt', ALNUM, 22)}${b64(random_bytes('neg-pbkdf2', 32))}"
    )
    add(
        _n(
            "neg-django-fixture-hash",
            "fixtures/users.json",
            f'[{{"model": "auth.user", "pk": 1, "fields": {{"username": "admin", "password": "{pbkdf2}"}}}}]\n',
        )
    )
    add(
        _n(
            "neg-htpasswd-hash",
            "nginx/.htpasswd",
            f"admin:$apr1${draw('neg-apr-salt', ALNUM, 8)}${draw('neg-apr', ALNUM + './', 22)}\n",
        )
    )
    add(
        _n(
            "neg-shadow-hash",
            "etc/shadow",
            f"root:$6${draw('neg-sha-salt', ALNUM, 16)}${draw('neg-sha', ALNUM + './', 86)}:19700:0:99999:7:::\n",
        )
    )
    add(
        _n(
            "neg-ldap-ssha",
            "ldif/users.ldif",
            f"dn: uid=alice,ou=people,dc=corp,dc=io\nuserPassword: {{SSHA}}{b64(random_bytes('neg-ssha', 24))}\n",
        )
    )

    # URLs and hosts without a credential ---------------------------------------------------------------------
    add(
        _n(
            "neg-url-user-at-host",
            "docs/deploy.md",
            "ssh -p 2222 deploy@10.0.0.5\nscp build.tgz deploy@web1.corp.io:/srv/releases/\n",
        )
    )
    add(
        _n(
            "neg-rsync-user-at-host",
            "Makefile",
            'deploy:\n\trsync -avz -e "ssh -p 2222" dist/ deploy@web1.corp.io:/srv/www/\n',
        )
    )
    add(
        _n(
            "neg-git-ssh-remotes",
            ".git/config",
            '[remote "origin"]\n\turl = git@github.com:corp/shop.git\n[remote "mirror"]\n\turl = ssh://git@git.corp.io:2222/ops/shop.git\n',
        )
    )
    add(
        _n("neg-https-user-no-password", "README.md", "git clone https://alice@bitbucket.org/corp/shop.git\n")
    )
    add(
        _n(
            "neg-db-url-no-password",
            ".env.development",
            "DATABASE_URL=postgres://localhost/shop_dev\nREDIS_URL=redis://redis:6379/1\nMONGO_URL=mongodb://mongo1:27017,mongo2:27017/shop?replicaSet=rs0\n",
        )
    )
    add(
        _n(
            "neg-db-url-user-only",
            "alembic.ini",
            "sqlalchemy.url = postgresql://postgres@localhost:5432/postgres\n",
        )
    )
    # Joined at import so this file does not itself hold a URL with a password in it.
    pg, mq = ":".join(("postgres", "postgres")), ":".join(("guest", "guest"))
    add(
        _n(
            "neg-ci-local-default-credentials",
            ".github/workflows/test.yml",
            f"    env:\n      DATABASE_URL: postgres://{pg}@localhost:5432/test_db\n      AMQP_URL: amqp://{mq}@localhost:5672/\n",
        )
    )
    add(
        _n(
            "neg-url-ipv6-port",
            "config/dev.toml",
            'listen = "http://[::1]:8080"\nmetrics = "http://admin@localhost:9090/metrics"\n',
        )
    )
    add(_n("neg-ftp-anonymous", "scripts/mirror.sh", "wget -r ftp://anonymous@ftp.gnu.org/gnu/hello/\n"))
    add(
        _n(
            "neg-mailto",
            "templates/footer.html",
            '<a href="mailto:security@corp.io?subject=Password%20reset">Report</a>\n',
        )
    )
    add(_n("neg-sentry-dsn-empty", ".env.example", "SENTRY_DSN=\nSENTRY_ENVIRONMENT=production\n"))

    # other look-alikes ---------------------------------------------------------------------------------------
    add(
        _n(
            "neg-protobuf-descriptor",
            "api/token_pb2.py",
            "DESCRIPTOR = _descriptor_pool.Default().AddSerializedFile(b'\\n\\x0btoken.proto\\x12\\x04shop\"\\x1f\\n\\x0cTokenRequest\\x12\\x0f\\n\\x07user_id\\x18\\x01 \\x01(\\t')\n",
        )
    )
    add(
        _n(
            "neg-graphql-persisted-query",
            "src/queries.json",
            f'{{"operationName": "Login", "extensions": {{"persistedQuery": {{"version": 1, "sha256Hash": "{digest_hex("holdout-login-query")}"}}}}}}\n',
        )
    )
    add(
        _n(
            "neg-css-hex-colors",
            "tailwind.config.js",
            "colors: { primary: '#1f2937', accent: '#f59e0b', token: '#0ea5e9' },\n",
        )
    )
    add(
        _n(
            "neg-version-build",
            "build-info.properties",
            f"build.version=4.2.1\nbuild.commit={digest_hex('holdout-build', 'sha1')[:12]}\nbuild.time=2024-03-01T12:34:56Z\n",
        )
    )
    add(
        _n(
            "neg-analytics-ids",
            "src/analytics.js",
            "gtag('config', 'G-4KQ2ZP7M1X');\nfbq('init', '1234567890123456');\n",
        )
    )
    add(
        _n(
            "neg-cookiecutter-template",
            "{{cookiecutter.project_slug}}/settings.py",
            'SECRET_KEY = "{{ cookiecutter.django_secret_key }}"\n',
        )
    )
    add(
        _n(
            "neg-password-policy-regex",
            "validators.py",
            "PASSWORD_RE = re.compile(r'^(?=.*[A-Z])(?=.*\\d)(?=.*[!@#$%^&*]).{12,}$')\n",
        )
    )
    add(
        _n(
            "neg-password-generator-alphabet",
            "utils/passwords.py",
            "ALPHABET = string.ascii_letters + string.digits + '!@#$%^&*'\npassword = ''.join(secrets.choice(ALPHABET) for _ in range(20))\n",
        )
    )
    add(
        _n(
            "neg-key-value-words",
            "docs/glossary.md",
            "A key-value store maps each primary-key to a record; the sort-key orders them.\n",
        )
    )
    add(
        _n(
            "neg-k8s-token-projection",
            "k8s/pod.yaml",
            "      volumes:\n        - name: token\n          projected:\n            sources:\n              - serviceAccountToken:\n                  path: token\n                  expirationSeconds: 3600\n",
        )
    )
    add(
        _n(
            "neg-tf-random-password",
            "main.tf",
            'resource "random_password" "db" {\n  length           = 24\n  special          = true\n  override_special = "!#$%&*()-_=+[]{}<>:?"\n}\n',
        )
    )
    add(
        _n(
            "neg-expect-no-secret",
            "scripts/login.exp",
            'spawn ssh admin@10.0.0.9\nexpect "password:"\nsend "$env(ADMIN_PASSWORD)\\r"\ninteract\n',
        )
    )
    add(
        _n(
            "neg-keytool-prompt",
            "docs/android.md",
            "keytool -genkey -v -keystore release.jks -alias upload -keyalg RSA -keysize 2048 -validity 10000\n",
        )
    )
    add(
        _n(
            "neg-openssl-passout-env",
            "scripts/bundle.sh",
            "openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout env:P12_PASSWORD\n",
        )
    )
    add(
        _n(
            "neg-fstab-credentials-file",
            "etc/fstab",
            "//nas.corp.io/backup /mnt/backup cifs credentials=/root/.smbcredentials,uid=1000 0 0\n",
        )
    )
    add(
        _n(
            "neg-wpa-psk-hash-comment",
            "docs/wifi.md",
            "Generate the `psk` line with `wpa_passphrase CorpWifi` and paste its output.\n",
        )
    )
    add(
        _n(
            "neg-pypirc-token-username",
            ".pypirc",
            "[pypi]\nusername = __token__\n\n[testpypi]\nrepository = https://test.pypi.org/legacy/\n",
        )
    )
    add(
        _n(
            "neg-laravel-config-env",
            "config/database.php",
            "'password' => env('DB_PASSWORD', ''),\n'unix_socket' => env('DB_SOCKET', ''),\n",
        )
    )
    add(
        _n(
            "neg-node-config-env",
            "src/db.js",
            "const pool = new Pool({ user: process.env.PGUSER, password: process.env.PGPASSWORD, host: 'db' });\n",
        )
    )
    add(
        _n(
            "neg-go-config-struct",
            "internal/config/config.go",
            'type DB struct {\n\tUser     string `env:"DB_USER"`\n\tPassword string `env:"DB_PASSWORD,required"`\n}\n',
        )
    )
    add(
        _n(
            "neg-csharp-options",
            "Program.cs",
            'builder.Services.Configure<SmtpOptions>(builder.Configuration.GetSection("Smtp"));\nvar pw = builder.Configuration["Smtp:Password"];\n',
        )
    )
    add(
        _n(
            "neg-ansible-no-log-task",
            "roles/db/tasks/main.yml",
            '- name: set root password\n  community.mysql.mysql_user:\n    name: root\n    password: "{{ mysql_root_password }}"\n  no_log: true\n',
        )
    )
    add(
        _n(
            "neg-helm-notes-template",
            "templates/NOTES.txt",
            '  export ADMIN_PASSWORD=$(kubectl get secret {{ .Release.Name }}-admin -o jsonpath="{.data.password}" | base64 -d)\n',
        )
    )
    add(
        _n(
            "neg-jupyter-cell-ids",
            "notebooks/eda.ipynb",
            f'{{"cell_type": "code", "execution_count": 3, "id": "{draw("neg-cell-id", HEX, 8)}-{draw("neg-cell-id2", HEX, 4)}", "metadata": {{}}}}\n',
        )
    )
    add(
        _n(
            "neg-base64-config-blob",
            "k8s/configmap.yaml",
            f"data:\n  settings.json.b64: {b64(json.dumps({'theme': 'dark', 'locale': 'de-DE', 'page_size': 50, 'features': ['search', 'export']}).encode())}\n",
        )
    )
    add(
        _n(
            "neg-docs-placeholder-key",
            "docs/quickstart.md",
            '```python\nclient = Groq(api_key=os.environ["GROQ_API_KEY"])\nnotion = Client(auth=os.environ["NOTION_TOKEN"])\n```\n',
        )
    )
    add(
        _n(
            "neg-docs-connstring-angle",
            "docs/database.md",
            '"Server=<host>;Database=<db>;User Id=<user>;Password=<password>;"\n',
        )
    )
    add(
        _n(
            "neg-pgpass-env",
            "scripts/backup.sh",
            'echo "$PGHOST:5432:*:$PGUSER:$PGPASSWORD" > ~/.pgpass && chmod 600 ~/.pgpass\n',
        )
    )

    # written before the rules for glued tokens, Kotlin/C#/PowerShell forms and lists ---------------------
    add(
        _n(
            "neg-glued-prefix-identifiers",
            "src/layout.py",
            "shelf_count = len(shelves)\nnetwork_test_case = 3\nbenchmark_test_results = []\n",
        )
    )
    add(
        _n(
            "neg-kotlin-mapof-reference",
            "src/Api.kt",
            'val headers = mapOf("Authorization" to "Bearer $token", "password" to password)\n',
        )
    )
    add(
        _n(
            "neg-csharp-configuration-read",
            "Program.cs",
            'var secret = builder.Configuration["Jwt:Secret"];\nvar pw = Configuration["Smtp:Password"] ?? "";\n',
        )
    )
    add(
        _n(
            "neg-powershell-securestring-variable",
            "deploy.ps1",
            '$secure = ConvertTo-SecureString $env:DEPLOY_PASSWORD -AsPlainText -Force\n$s = ConvertTo-SecureString "$Password" -AsPlainText -Force\n',
        )
    )
    add(
        _n(
            "neg-list-of-key-names",
            "settings.py",
            'SECRET_KEYS = ["SECRET_KEY", "API_TOKEN"]\napi_keys = [key for key in keys if key]\npasswords = []\n',
        )
    )
    add(_n("neg-yaml-list-placeholder", "values.yaml", "passwords: [changeme, ${DB_PASSWORD}]\ntokens: []\n"))
    return out


def holdout() -> list[Case]:
    """Every hold-out case, positives first."""
    return [*holdout_positives(), *holdout_negatives()]
