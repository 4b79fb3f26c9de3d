/*
 * graph.h - the topology as a Graphviz DOT picture (stoatc graph).
 *
 * Sub-topologies are clusters holding their operators and state stores;
 * topics are boxes outside them (internal ones, repartition and changelog
 * topics, dashed).  The text is deterministic: the same program gives the
 * same bytes, whatever the directory it is compiled from.
 */
#ifndef STOAT_GRAPH_H
#define STOAT_GRAPH_H

#include "sema.h"

/* Returns the DOT text of prog's topology; path is the .stoat file's name. */
char *graph_dot(const Program *prog, const char *path);

#endif
