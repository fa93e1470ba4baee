"""Google Cloud Storage and Dataflow checked before any work, with bounded waits.

Beam looks for Google credentials with four retries and backoff, then goes on anonymously, and its
storage client retries a refused listing for 120 s: ``--runner DataflowRunner`` with a fake project
failed after minutes with a long traceback. ``check_gcp`` finds the credentials once, refreshes
them, lists one object of each ``gs://`` bucket a command names and, on Dataflow, lists one job of
the project, each with short timeouts; it raises ``ObjectStoreUnreachable`` with one paragraph
naming the service, the field and what to check. No credential value is ever put into a message.
"""

from __future__ import annotations

import os
import re
from urllib.parse import urlsplit

from codemix.config import ConfigError
from codemix.pipelines.object_store import ObjectStoreUnreachable

CONNECT_SECONDS, READ_SECONDS = 5, 15  # every call of the check: token refresh, bucket listing, job listing
CREDENTIAL_HELP = ("set GOOGLE_APPLICATION_CREDENTIALS to a service-account key file, or run "
                   "`gcloud auth application-default login` on this machine (on Google Cloud, attach a service "
                   "account to the VM)")
# Private keys, tokens and key ids a Google error could quote back: never shown.
_SECRET_TEXT = re.compile(r"-----BEGIN[^-]*-----.*?-----END[^-]*-----|ya29\.[\w.-]+|\b[0-9a-f]{40}\b", re.DOTALL)


def gcs_buckets(locations: list[str]) -> dict[str, tuple[str, str, str]]:
    """``{bucket: (field, location, prefix)}`` for the ``gs://`` entries of ``(field, location)`` pairs."""
    buckets: dict[str, tuple[str, str, str]] = {}
    for field, location in locations:
        parts = urlsplit(location or "")
        if parts.scheme == "gs" and parts.netloc:
            buckets.setdefault(parts.netloc, (field, location, parts.path.lstrip("/")))
    return buckets


def is_dataflow(beam_args: list[str]) -> bool:
    from codemix.pipelines.options import runner_name

    return runner_name(beam_args).rsplit(".", 1)[-1].lower().removesuffix("runner") == "dataflow"


def check_gcp(locations: list[tuple[str, str]], beam_args: list[str]) -> None:
    """Before any work: credentials, every ``gs://`` bucket among ``locations`` (``(field, location)``
    pairs) and, with ``--runner DataflowRunner``, its ``--project``, ``--temp_location`` and
    ``--staging_location``. Raises ``ConfigError`` for a missing option, ``ObjectStoreUnreachable``
    for what the service refused or did not answer."""
    from apache_beam.options.pipeline_options import GoogleCloudOptions, PipelineOptions

    options = PipelineOptions(beam_args).view_as(GoogleCloudOptions)
    dataflow = is_dataflow(beam_args)
    if dataflow:
        _check_dataflow_options(options)
        locations = [*locations, ("--temp_location", options.temp_location),
                     ("--staging_location", options.staging_location)]
    buckets = gcs_buckets(locations)
    if not buckets and not dataflow:
        return
    service = "Dataflow" if dataflow else "Google Cloud Storage"
    _check_installed(service, next(iter(buckets.values()), ("--runner", "DataflowRunner", ""))[:2])
    # What needs an identity: a Dataflow job, and writing. Public buckets are read anonymously, as Beam does.
    needs = (f"--project = {options.project}" if dataflow else
             next((f"{field} = {location}" for _, (field, location, _) in buckets.items() if field == "--out"), None))
    emulator = os.environ.get("STORAGE_EMULATOR_HOST")
    credentials = None if emulator and not dataflow else _credentials(service, options, needs)
    for bucket, (field, location, prefix) in sorted(buckets.items()):
        _check_bucket(credentials, options.project, bucket, field, location, prefix)
    if dataflow:
        _check_dataflow_project(credentials, options)


def _check_dataflow_options(options) -> None:
    if not options.project:
        raise ConfigError("--project", "DataflowRunner needs the Google Cloud project to run the job in",
                          "give --project=PROJECT_ID (and --region, --temp_location=gs://BUCKET/tmp)")
    if not (options.temp_location or options.staging_location or "").startswith("gs://"):
        raise ConfigError("--temp_location", "DataflowRunner needs a gs:// location for its temporary and staged files",
                          "give --temp_location=gs://BUCKET/tmp in a bucket the job's project may write")


def _check_installed(service: str, needed_by: tuple[str, str]) -> None:
    """The Google client libraries come with Beam's ``gcp`` extra; without them Beam fails deep in a stage."""
    import importlib

    try:
        for module in ("google.auth", "google.cloud.storage"):
            importlib.import_module(module)
    except ImportError as error:
        field, value = needed_by
        raise ConfigError(field, f"{value} needs {service}, and this Python lacks its client library "
                                 f"({type(error).__name__}: {clean(str(error), 120)})",
                          "install Beam's Google Cloud extra: pip install 'apache-beam[gcp]'") from None


def clean(text: str, limit: int = 300) -> str:
    """An error's text as codemix prints it: one line, short, credential-looking strings removed."""
    return " ".join(_SECRET_TEXT.sub("<redacted>", text).split())[:limit]


def _credentials(service: str, options, needs: str | None):
    """Application Default Credentials, refreshed once with bounded waits; None when there are none
    and nothing ``needs`` them (public buckets are listed anonymously); raises with what to set."""
    import google.auth
    from google.auth import exceptions

    try:
        credentials, _ = google.auth.default(scopes=options.gcp_oauth_scopes)
    except exceptions.DefaultCredentialsError as error:
        if needs is None and not os.environ.get("GOOGLE_APPLICATION_CREDENTIALS"):
            return None
        raise ObjectStoreUnreachable(
            f"{service}: no Google Cloud credentials were found on this machine ({_credential_source(error)}), "
            f"and {needs or 'GOOGLE_APPLICATION_CREDENTIALS'} needs them. codemix and Beam reach {service} with "
            f"Application Default Credentials: {CREDENTIAL_HELP}. Nothing was read or written.") from None
    try:
        credentials.refresh(_bounded_request())
    except Exception as error:  # noqa: BLE001 - a refused key and an unreachable token endpoint both end here
        raise ObjectStoreUnreachable(
            f"{service}: the Google Cloud credentials found ({type(credentials).__name__}) could not be used: "
            f"{type(error).__name__}: {clean(str(error))}. Check that the key or login is current and not revoked, "
            f"and that this machine reaches Google's token service; {CREDENTIAL_HELP}. "
            "Nothing was read or written.") from None
    return credentials


def _credential_source(error: Exception) -> str:
    path = os.environ.get("GOOGLE_APPLICATION_CREDENTIALS")
    if path:
        return f"GOOGLE_APPLICATION_CREDENTIALS names {path}: {clean(str(error), 160)}"
    return "no GOOGLE_APPLICATION_CREDENTIALS, no gcloud application-default login, no metadata server"


def _bounded_request():
    """A google-auth transport whose every call waits at most ``CONNECT_SECONDS``/``READ_SECONDS``
    (its default is 120 s)."""
    import google.auth.transport.requests

    base = google.auth.transport.requests.Request()

    def request(*args, **kwargs):
        kwargs["timeout"] = (CONNECT_SECONDS, READ_SECONDS)
        return base(*args, **kwargs)
    return request


def _check_bucket(credentials, project: str | None, bucket: str, field: str, location: str, prefix: str) -> None:
    """List one object under ``prefix`` with no retry and short timeouts."""
    from google.api_core import exceptions
    from google.cloud import storage

    client = (storage.Client(project=project, credentials=credentials) if credentials
              else storage.Client.create_anonymous_client())
    try:
        list(client.list_blobs(bucket, prefix=prefix, max_results=1, timeout=(CONNECT_SECONDS, READ_SECONDS),
                               retry=None))
        return
    except exceptions.NotFound:
        problem = f"there is no bucket {bucket!r} (or the credentials' project cannot see it)"
    except exceptions.Forbidden as error:
        problem = f"the credentials may not list it (403: {clean(error.message, 160)})"
    except exceptions.GoogleAPICallError as error:
        problem = f"it refused the request ({error.code}: {clean(error.message, 160)})"
    except Exception as error:  # noqa: BLE001 - connection errors and timeouts from requests/urllib3
        problem = f"it did not answer ({type(error).__name__}: {clean(str(error), 160)})"
    raise ObjectStoreUnreachable(
        f"Google Cloud Storage: cannot read {field} = {location}: {problem}. Check the bucket name, that the "
        "credentials' account has storage.objects.list and storage.objects.create on it (roles/storage.objectAdmin "
        "for --out), and that this machine reaches storage.googleapis.com. Nothing was read or written.")


def _check_dataflow_project(credentials, options) -> None:
    """One job listing of ``--project`` in ``--region`` at ``--dataflow_endpoint``: the project exists,
    the Dataflow API is enabled there and the credentials may use it."""
    from google.auth.transport.requests import AuthorizedSession

    endpoint = (options.dataflow_endpoint or "https://dataflow.googleapis.com").rstrip("/")
    where = f"locations/{options.region}/" if options.region else ""
    url = f"{endpoint}/v1b3/projects/{options.project}/{where}jobs"
    try:
        response = AuthorizedSession(credentials).get(url, params={"pageSize": 1},
                                                      timeout=(CONNECT_SECONDS, READ_SECONDS))
    except Exception as error:  # noqa: BLE001 - connection errors and timeouts
        problem = f"it did not answer at {endpoint} ({type(error).__name__}: {clean(str(error), 160)})"
    else:
        if response.ok:
            return
        problem = _dataflow_refusal(response)
    raise ObjectStoreUnreachable(
        f"Dataflow: cannot use --project = {options.project}"
        f"{f' in --region = {options.region}' if options.region else ''}: {problem}. Check the project id, that "
        "the Dataflow API is enabled in it, and that the credentials' account has roles/dataflow.admin there. "
        "Nothing was submitted.")


def _dataflow_refusal(response) -> str:
    try:
        message = response.json().get("error", {}).get("message", "")
    except ValueError:
        message = response.text
    what = {403: "the credentials may not use Dataflow there, or its API is not enabled",
            404: "there is no such project or region"}.get(response.status_code, "it refused the request")
    return f"{what} ({response.status_code}: {clean(message, 160)})"
