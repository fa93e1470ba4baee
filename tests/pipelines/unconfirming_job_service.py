"""A Beam job service that accepts every job, reports it RUNNING forever and never confirms a cancel.

It stands for a faulty peer (a cluster whose job manager acknowledges a cancel and lets the job run
on), which no real job service can be made to be on demand: Beam's own PortableRunner talks to it
over gRPC exactly as to Flink's or Spark's job server. It runs no pipeline; it only answers.

    python -m tests.pipelines.unconfirming_job_service PORT
"""

from __future__ import annotations

import sys
import threading
from concurrent import futures

import grpc
from apache_beam.portability.api import beam_job_api_pb2 as api
from apache_beam.portability.api import beam_job_api_pb2_grpc as api_grpc


class UnconfirmingJobService(api_grpc.JobServiceServicer):
    def __init__(self):
        self.cancels: list[str] = []
        self._forever = threading.Event()  # never set: the job never ends

    def DescribePipelineOptions(self, request, context):
        return api.DescribePipelineOptionsResponse()

    def Prepare(self, request, context):
        return api.PrepareJobResponse(preparation_id="job-1")  # no staging endpoint: nothing to stage

    def Run(self, request, context):
        print(f"run {request.preparation_id}", flush=True)
        return api.RunJobResponse(job_id=request.preparation_id)

    def GetState(self, request, context):
        return api.JobStateEvent(state=api.JobState.RUNNING)

    def GetStateStream(self, request, context):
        yield api.JobStateEvent(state=api.JobState.RUNNING)
        while context.is_active():
            self._forever.wait(1.0)

    def GetMessageStream(self, request, context):
        yield api.JobMessagesResponse(state_response=api.JobStateEvent(state=api.JobState.RUNNING))
        while context.is_active():
            self._forever.wait(1.0)

    def Cancel(self, request, context):
        print(f"cancel {request.job_id}: acknowledged, not done", flush=True)
        return api.CancelJobResponse(state=api.JobState.CANCELLING)


def main(port: int) -> None:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=16))
    api_grpc.add_JobServiceServicer_to_server(UnconfirmingJobService(), server)
    server.add_insecure_port(f"127.0.0.1:{port}")
    server.start()
    print(f"listening on 127.0.0.1:{port}", flush=True)
    server.wait_for_termination()


if __name__ == "__main__":
    main(int(sys.argv[1]))
