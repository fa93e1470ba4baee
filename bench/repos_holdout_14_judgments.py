"""Issue 46, fourteenth holdout: hand judgments of the drops of its single run (FRESH, main 26f7e74, 22:20 UTC), made
afterwards by reading every (reason, folder) group of the samples with the collector's hand list
(bench/repos_holdout_14_vendored.tsv) beside them; b46v's, so not independent. Rule as the earlier holdouts': a drop is
wrong when it removes the repository's own code, prose or configuration for a reason that misreads it. Right: every
licence drop (Translation-Terminator, JJA-input-playground, promtail-jsonnet and university have no licence file; the
university's own files read `license_not_allowed` rather than `no_license`, a licence reading but a right drop), the
copies the list names (university's html2pdf/TCPDF with its DejaVu font notes, PHPMailer's extras and tests, the jQuery
plugins and web-app plugins, jqPlot's minified builds; VBAChromeDevProtocol's markdeep.js and Chrome's protocol
description; JJA's SDL controller database), binary files. No drop was judged wrong.

    python -m bench.repos_holdout_14_judgments SAMPLES_DIR   (the bench's --samples folder)
"""
import sys

from bench.repos_holdout_2_judgments import tally

WRONG = {
    "PerditionC+VBAChromeDevProtocol": [],
    "telppa+Translation-Terminator": [],
    "leondejong+image-viewer-actionscript3": [],
    "hynra+JJA-input-playground": [],
    "observatorium+promtail-jsonnet": [],
    "AlissonDiniz+university": [],
}

if __name__ == "__main__":
    tally(sys.argv[1], WRONG)
