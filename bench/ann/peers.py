#!/usr/bin/python3
"""peers.py — FAISS (IndexHNSWFlat) and hnswlib on the vectors ann_bench wrote.

Usage: peers.py DIR DIM M EFC EF[,EF...] [BUILD_THREADS]

Same vectors, queries and exact top 10 (DIR/base.f32, query.f32, truth.i32)
as dbmcp's HNSW in ann_bench; the same graph parameters (M, efConstruction);
inner product on the L2-normalised vectors (= cosine ranking). Queries one
at a time on one thread, as ann_bench does; each call goes through the
library's Python binding, whose overhead (a few microseconds) is inside
the figure. Builds may use BUILD_THREADS threads (both libraries build in
parallel; dbmcp's build is single-threaded): the build column says which.
Prints rows in ann_bench's format. Driven by bench/ann.sh.
"""
import sys
import time

import numpy as np

K = 10


def rows(engine, params, build_s, ms, recall):
    ms = np.sort(np.array(ms))
    print("%-16s %-22s %9.1f %9.3f %9.3f %8.4f" % (engine, params, build_s, ms[len(ms) // 2], ms.mean(), recall), flush=True)


def recall_of(found, truth):
    hit = 0
    for q in range(truth.shape[0]):
        hit += len(set(int(x) for x in found[q] if x >= 0) & set(int(x) for x in truth[q]))
    return hit / truth.size


def main():
    d, dim, m, efc, efs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    threads = int(sys.argv[6]) if len(sys.argv) > 6 else 1
    base = np.fromfile(d + "/base.f32", dtype=np.float32).reshape(-1, dim)
    queries = np.fromfile(d + "/query.f32", dtype=np.float32).reshape(-1, dim)
    truth = np.fromfile(d + "/truth.i32", dtype=np.int32).reshape(-1, K)
    efs = [int(x) for x in efs.split(",")]

    import faiss
    faiss.omp_set_num_threads(threads)
    ix = faiss.IndexHNSWFlat(dim, m, faiss.METRIC_INNER_PRODUCT)
    ix.hnsw.efConstruction = efc
    t = time.monotonic()
    ix.add(base)
    build = time.monotonic() - t
    faiss.omp_set_num_threads(1)
    for ef in efs:
        ix.hnsw.efSearch = ef
        found, ms = [], []
        for q in range(queries.shape[0]):
            t = time.monotonic()
            _, ids = ix.search(queries[q:q + 1], K)
            ms.append((time.monotonic() - t) * 1e3)
            found.append(ids[0])
        rows("faiss %s" % faiss.__version__, "M=%d efC=%d ef=%d" % (m, efc, ef), build, ms, recall_of(found, truth))
    del ix

    import hnswlib
    ix = hnswlib.Index(space="ip", dim=dim)
    ix.init_index(max_elements=base.shape[0], M=m, ef_construction=efc, random_seed=100)
    t = time.monotonic()
    ix.add_items(base, np.arange(base.shape[0]), num_threads=threads)
    build = time.monotonic() - t
    ix.set_num_threads(1)
    for ef in efs:
        ix.set_ef(max(ef, K))
        found, ms = [], []
        for q in range(queries.shape[0]):
            t = time.monotonic()
            ids, _ = ix.knn_query(queries[q:q + 1], k=K, num_threads=1)
            ms.append((time.monotonic() - t) * 1e3)
            found.append(ids[0])
        rows("hnswlib 0.6.2", "M=%d efC=%d ef=%d" % (m, efc, ef), build, ms, recall_of(found, truth))


if __name__ == "__main__":
    main()
