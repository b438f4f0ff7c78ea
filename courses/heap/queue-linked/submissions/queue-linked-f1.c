#include <stdio.h>
#include <stdlib.h>

struct qnode {
    int item;
    struct qnode *next;
};

struct queue {
    struct qnode *front, *rear;
    int size;
};

void enqueue(struct queue *q, int item)
{
    struct qnode *n = malloc(sizeof(struct qnode));
    n->item = item;
    n->next = NULL;
    if (q->rear == NULL)
        q->front = n;
    else
        q->rear->next = n;
    q->rear = n;
    q->size++;
}

int dequeue(struct queue *q, int *item)
{
    struct qnode *old = q->front;
    if (old == NULL)
        return 0;
    q->front = old->next;
    if (q->front == NULL)
    *item = old->item;
    free(old);
    q->size--;
    return 1;
}

void show(const struct queue *q)
{
    const struct qnode *p = q->front;
    printf("[%d]", q->size);
    while (p != NULL) {
        printf(" %d", p->item);
        p = p->next;
    }
    putchar('\n');
}

int main(void)
{
    struct queue q = {NULL, NULL, 0};
    char op;
    int x;
    while (scanf(" %c", &op) == 1) {
        if (op == 'e' && scanf("%d", &x) == 1)
            enqueue(&q, x);
        else if (op == 'd' && dequeue(&q, &x))
            printf("%d\n", x);
        else if (op == 'd')
            printf("underflow\n");
        else if (op == 's')
            show(&q);
    }
    while (dequeue(&q, &x))
        ;
    return 0;
}
