#include <stdio.h>
#include <stdlib.h>

typedef struct dnode {
    int v;
    struct dnode *prev, *next;
} dnode;

typedef struct {
    dnode *first, *last;
} dlist;

void append(dlist *l, int v)
{
    dnode *n = malloc(sizeof(dnode));
    n->v = v;
    n->next = NULL;
    n->prev = l->last;
    if (l->last != NULL)
        l->last->next = n;
    else
        l->first = n;
    l->last = n;
}

int remove_first(dlist *l, int v)
{
    dnode *n = l->first;
    while (n != NULL && n->v != v)
        n = n->next;
    if (n == NULL)
        return 0;
    if (n->prev != NULL)
        n->prev->next = n->next;
    else
        l->first = n->next;
    if (n->next != NULL)
        n->next->prev = n;
    else
        l->last = n->prev;
    free(n);
    return 1;
}

int main(void)
{
    dlist l = {NULL, NULL};
    dnode *p;
    int n, v, i;

    scanf("%d", &n);
    for (i = 0; i < n; i++) {
        scanf("%d", &v);
        append(&l, v);
    }
    scanf("%d", &v);
    if (!remove_first(&l, v))
        printf("%d not found\n", v);
    for (p = l.first; p != NULL; p = p->next)
        printf("%d ", p->v);
    printf("|");
    for (p = l.last; p != NULL; p = p->prev)
        printf(" %d", p->v);
    printf("\n");
    while (l.first != NULL)
        remove_first(&l, l.first->v);
    return 0;
}
