"""Crawl sources, and the Beam pipelines that run each stage of `mix build`."""

from pipelines.s3_clients import share_s3_clients

# Beam's S3 filesystem would build a boto3 client per call (pipelines/s3_clients.py); done on import
# so the driver and every worker that runs a codemix step share them.
share_s3_clients()
